package io.partkit.kvstore;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.client.KvException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Client threads writing distinct keys ({@code w<thread>-<i>} = {@code v<i>}) to a process
 * cluster through one routing client, for the tests that fault it under load; a key counts once
 * its put was acknowledged, and an indeterminate outcome is counted, never counted as written.
 */
final class ProcessWriters implements AutoCloseable {

  final Map<String, String> acked = new ConcurrentHashMap<>();
  final AtomicInteger indeterminate = new AtomicInteger();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();

  ProcessWriters(KvClient client, int n) {
    for (int t = 0; t < n; t++) {
      int id = t;
      Thread thread = new Thread(() -> {
        for (int i = 0; !stop.get(); i++) {
          String key = "w" + id + "-" + i;
          try {
            client.put(key.getBytes(UTF_8), ("v" + i).getBytes(UTF_8));
            acked.put(key, "v" + i);
          } catch (KvException e) {
            if (e.indeterminate()) {
              indeterminate.incrementAndGet();
            }
          }
        }
      }, "writer-" + t);
      threads.add(thread);
      thread.start();
    }
  }

  /**
   * Waits until {@code n} writes were acknowledged.
   *
   * @throws IllegalStateException if they were not within 120 s (the cluster stopped serving)
   */
  void awaitAcks(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (acked.size() < n) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + acked.size() + " of " + n
            + " writes acknowledged within 120 s");
      }
      Thread.sleep(10); // poll: a spinning test thread takes a core from the cluster it waits on
    }
  }

  /** Lets the writers get {@code more} further acknowledgements, stops them, and returns all. */
  Map<String, String> stopAfter(int more) throws InterruptedException {
    awaitAcks(acked.size() + more);
    close();
    return Map.copyOf(acked);
  }

  /** Tells the writers to stop after their operation in flight, without waiting (teardown). */
  void stopNow() {
    stop.set(true);
  }

  /** Stops the writers and waits for them (each finishes its operation in flight). */
  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(90));
    }
  }
}
