package io.partkit.replica.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Outcome;
import io.partkit.spi.HashSlots;
import io.partkit.spi.hash.KeyHash;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@link ReplicaClient} shared by many threads against three nodes and a control in this
 * process: each thread writes keys of its own and compares-and-sets counters all threads share,
 * through a pool of fewer connections per node than there are threads; then a node is stopped
 * under the writes and started again. Every acknowledged write is read back, each counter holds
 * exactly its acknowledged increments, and the client never opened more connections to a node
 * than its bound.
 */
class ConcurrentClientTest {

  static final int THREADS = 16;
  static final int CONNECTIONS = 4;
  static final int COUNTERS = 3;

  @TempDir Path dir;
  InProcessCluster cluster;

  /** Values each key may hold: its last acknowledged write's, and any unknown one's since. */
  final Map<String, Set<String>> allowed = new ConcurrentHashMap<>();
  final AtomicInteger acknowledged = new AtomicInteger();
  final AtomicInteger unknown = new AtomicInteger();
  /** Each counter's increments acknowledged, and those whose outcome is unknown. */
  final AtomicLong[] incremented = new AtomicLong[COUNTERS];
  final AtomicLong[] maybeIncremented = new AtomicLong[COUNTERS];

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
      assertThat(cluster.failures).as("failures the nodes reported").isEmpty();
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void manyThreadsShareOneClientAndEveryAcknowledgedWriteIsReadBack() throws Exception {
    cluster = InProcessCluster.start(dir, 3, new HashSlots(8, KeyHash.MURMUR3_128), 3);
    for (int i = 0; i < COUNTERS; i++) {
      incremented[i] = new AtomicLong();
      maybeIncremented[i] = new AtomicLong();
    }
    try (ReplicaClient c = cluster.client().connectionsPerNode(CONNECTIONS).build()) {
      int[] most = new int[3];
      AtomicBoolean stop = new AtomicBoolean();
      Thread sampler = new Thread(() -> {
        while (!stop.get()) {
          for (int n = 0; n < 3; n++) {
            most[n] = Math.max(most[n], c.openConnections(n));
          }
          Thread.onSpinWait();
        }
      });
      sampler.start();

      // a calm cluster: every write's outcome is known, every counter exact
      runWriters(c, 0, 60, () -> { });
      assertThat(unknown.get()).as("unknown outcomes on a calm cluster").isZero();
      assertThat(acknowledged.get()).isEqualTo(THREADS * 60);
      readBack(c);

      // node 0 stopped while the threads write, then started again
      CountDownLatch halfway = new CountDownLatch(THREADS);
      Thread fault = new Thread(() -> {
        try {
          halfway.await();
          cluster.stopNode(0);
          Thread.sleep(500);
          cluster.startNode(0);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      fault.start();
      runWriters(c, 1, 120, halfway::countDown);
      fault.join();
      cluster.awaitSettled(c);
      readBack(c);
      stop.set(true);
      sampler.join();

      for (int n = 0; n < 3; n++) {
        assertThat(most[n]).as("connections to node %d at once", n)
            .isLessThanOrEqualTo(CONNECTIONS);
      }
      assertThat(Math.max(most[0], Math.max(most[1], most[2])))
          .as("the threads' requests went on several connections to one node at once")
          .isGreaterThan(1);
      assertThat(acknowledged.get()).as("writes acknowledged in all").isGreaterThan(THREADS * 100);
    }
  }

  @Test
  void aClosedClientFailsEveryCallWithoutSendingAndKeepsNoConnection() throws Exception {
    cluster = InProcessCluster.start(dir, 3, new HashSlots(4, KeyHash.MURMUR3_128), 1);
    ReplicaClient c = cluster.client().build();
    assertThat(c.put(b("k"), b("v")).outcome()).isEqualTo(Outcome.OK);
    c.close();
    ReplicaClient.BytesResult r = c.get(b("k"));
    assertThat(r.outcome()).isEqualTo(Outcome.FAIL);
    assertThat(r.why()).contains("the client is closed");
    for (int n = 0; n < 3; n++) {
      assertThat(c.openConnections(n)).as("connections to node %d", n).isZero();
    }
  }

  /**
   * {@link #THREADS} threads, each writing {@code writes} keys of its own ({@code
   * t<thread>-<i>}, pass {@code pass} as the value's prefix) and incrementing a shared counter
   * after each write; {@code halfway} runs once a thread wrote half of its keys.
   */
  private void runWriters(ReplicaClient c, int pass, int writes, Runnable halfway)
      throws InterruptedException {
    List<Thread> threads = new ArrayList<>();
    List<Throwable> thrown = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      threads.add(new Thread(() -> {
        try {
          for (int i = 0; i < writes; i++) {
            if (i == writes / 2) {
              halfway.run();
            }
            String key = "t" + thread + "-" + i;
            String value = "p" + pass + "-" + i;
            write(c, key, value);
            increment(c, (thread + i) % COUNTERS);
          }
        } catch (Throwable e) {
          synchronized (thrown) {
            thrown.add(e);
          }
        }
      }, "writer-" + t));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(120));
      assertThat(t.isAlive()).as(t.getName() + " still writing after 120 s").isFalse();
    }
    assertThat(thrown).isEmpty();
  }

  /** Writes {@code key} until its outcome is known or unknown (a definite failure: again). */
  private void write(ReplicaClient c, String key, String value) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      ReplicaClient.BytesResult r = c.put(b(key), b(value));
      if (r.outcome() == Outcome.OK) {
        allowed.put(key, new HashSet<>(Set.of(value)));
        acknowledged.incrementAndGet();
        return;
      }
      if (r.outcome() == Outcome.UNKNOWN) {
        unknown.incrementAndGet();
        allowed.computeIfAbsent(key, k -> new HashSet<>(java.util.Collections.singleton(null)))
            .add(value);
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no write of " + key + " within 30 s");
  }

  /** Adds one to counter {@code n} by compare-and-set: reads it, then sets it one higher. */
  private void increment(ReplicaClient c, int n) throws InterruptedException {
    byte[] key = b("counter-" + n);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      ReplicaClient.BytesResult read = c.get(key);
      if (read.outcome() != Outcome.OK) {
        Thread.sleep(20);
        continue;
      }
      long now = read.value() == null ? 0 : Long.parseLong(new String(read.value(), UTF_8));
      ReplicaClient.BytesResult r = c.cas(key, read.value(), b(Long.toString(now + 1)));
      if (r.outcome() == Outcome.OK) {
        incremented[n].incrementAndGet();
        return;
      }
      if (r.outcome() == Outcome.UNKNOWN) {
        maybeIncremented[n].incrementAndGet();
        return;
      }
      // another thread's increment came first (a mismatch), or a refusal: read again
    }
    throw new AssertionError("no increment of counter " + n + " within 30 s");
  }

  /** Reads every key back, from as many threads as wrote them, and every counter. */
  private void readBack(ReplicaClient c) throws Exception {
    List<String> keys = new ArrayList<>(allowed.keySet());
    List<String> wrong = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int from = t;
      readers.add(new Thread(() -> {
        for (int i = from; i < keys.size(); i += THREADS) {
          String key = keys.get(i);
          String got = readOk(c, b(key));
          if (!allowed.get(key).contains(got)) {
            wrong.add(key + " holds " + got + ", not one of " + allowed.get(key));
          }
        }
      }));
    }
    readers.forEach(Thread::start);
    for (Thread t : readers) {
      t.join();
    }
    assertThat(wrong).as("keys read back with a value no write left").isEmpty();
    for (int n = 0; n < COUNTERS; n++) {
      String got = readOk(c, b("counter-" + n));
      long value = got == null ? 0 : Long.parseLong(got);
      assertThat(value).as("counter %d", n).isBetween(incremented[n].get(),
          incremented[n].get() + maybeIncremented[n].get());
    }
  }

  private static String readOk(ReplicaClient c, byte[] key) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    ReplicaClient.BytesResult r = null;
    while (System.nanoTime() < deadline) {
      r = c.get(key);
      if (r.outcome() == Outcome.OK) {
        return r.value() == null ? null : new String(r.value(), UTF_8);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    throw new AssertionError("no read of " + new String(key, UTF_8) + " within 30 s: " + r);
  }
}
