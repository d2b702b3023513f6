package io.partkit.replica.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Message.Outcome;
import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.spi.HashSlots;
import io.partkit.spi.hash.KeyHash;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spread keys over two nodes and a control in this process (eight partitions, one copy each):
 * where the writes go, what a read returns, what is refused, the layout on the nodes, the price
 * of ordering by clocks (a client whose clock runs an hour ahead wins over a later write) that
 * {@link SpreadWrites#LINEARIZABLE} does not pay, and many threads writing one spread key.
 */
class KeySpreadingTest {

  private static final byte[] HOT = b("hot");

  @TempDir static Path dir;
  static InProcessCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = InProcessCluster.start(dir, 2, new HashSlots(8, KeyHash.MURMUR3_128), 1);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
      assertThat(cluster.failures).as("failures the nodes reported").isEmpty();
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static String s(ReplicaClient.BytesResult r) {
    assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.OK);
    return r.value() == null ? null : new String(r.value(), UTF_8);
  }

  private static void ok(ReplicaClient.BytesResult r) {
    assertThat(r.outcome()).as(String.valueOf(r.why())).isEqualTo(Outcome.OK);
  }

  private static ReplicaClient.Builder client() {
    return cluster.client();
  }

  private static long served(ClusterLoad load, int partition, ToLongFunction<PartitionLoad> what) {
    return what.applyAsLong(load.partition(partition));
  }

  @Test
  void writesGoToTheSubKeysPartitionsAndReadsReturnTheNewest() throws Exception {
    try (ReplicaClient plain = client().build();
        ReplicaClient spreading = client().spreadKey(HOT, 4).build()) {
      ReplicaClient.Table table = plain.table();
      Set<Integer> subPartitions = new HashSet<>();
      for (int i = 0; i < 4; i++) {
        subPartitions.add(table.route(KeySpreading.subKey(HOT, i)).orElseThrow().partition());
      }
      int home = table.route(HOT).orElseThrow().partition();
      assertThat(subPartitions).as("the sub-keys hash to several partitions").hasSizeGreaterThan(1);

      ok(plain.put(HOT, b("before")));
      assertThat(s(spreading.get(HOT))).as("a value from before the spread is read")
          .isEqualTo("before");
      ClusterLoad before = spreading.load();
      for (int i = 0; i < 200; i++) {
        ok(spreading.put(HOT, b("v" + i)));
      }
      assertThat(s(spreading.get(HOT))).isEqualTo("v199");
      ClusterLoad after = spreading.load();
      long spreadWrites = 0;
      int partitionsWritten = 0;
      for (int p : subPartitions) {
        long cas = served(after, p, PartitionLoad::compareAndSets)
            - served(before, p, PartitionLoad::compareAndSets);
        spreadWrites += cas;
        partitionsWritten += cas > 0 ? 1 : 0;
      }
      assertThat(spreadWrites).as("each write is one compare-and-set of a sub-key")
          .isEqualTo(200);
      assertThat(partitionsWritten).as("the writes were spread").isGreaterThan(1);
      if (!subPartitions.contains(home)) {
        assertThat(served(after, home, PartitionLoad::puts)
            - served(before, home, PartitionLoad::puts)).as("the key's own partition").isZero();
      }
      assertThat(s(plain.get(HOT))).as("a client that does not spread sees the old value")
          .isEqualTo("before");
    }
  }

  @Test
  void aSubKeysValueIsTheStampTheWriterAndTheValueAsDocumented() {
    byte[] key = b("layout");
    try (ReplicaClient plain = client().build();
        ReplicaClient spreading = client().spreadKey(key, 2).subKeyChoiceForTest(ways -> 1)
            .wallClockForTest(() -> 1_000).build()) {
      ok(spreading.put(key, b("x")));
      byte[] sub = KeySpreading.subKey(key, 1);
      assertThat(sub).as("the key, 0x00 'spread', the index")
          .isEqualTo(b("layout\0spread\u0001"));
      assertThat(KeySpreading.isSubKey(sub)).isTrue();
      assertThat(plain.get(KeySpreading.subKey(key, 0)).value()).as("sub-key 0").isNull();
      ByteBuffer raw = ByteBuffer.wrap(plain.get(sub).value());
      assertThat(raw.get()).as("the magic byte").isEqualTo((byte) 0xA7);
      assertThat(raw.getLong()).as("the stamp: milliseconds << 16").isEqualTo(1_000L << 16);
      raw.getLong(); // the writer's number, drawn at random
      assertThat(raw.remaining()).isEqualTo(1);
      assertThat(raw.get()).isEqualTo((byte) 'x');
    }
  }

  @Test
  void compareAndSetOfASpreadKeyIsRefusedAndForeignSubKeyValuesAreNamed() {
    try (ReplicaClient plain = client().build();
        ReplicaClient spreading = client().spreadKey(b("hot-cas"), 3).build()) {
      assertThatThrownBy(() -> spreading.cas(b("hot-cas"), null, b("x")))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("compare-and-set of key 0x686f742d636173 is refused");
      ok(spreading.cas(b("other"), null, b("x"))); // other keys are not affected
      ok(plain.put(KeySpreading.subKey(b("hot-cas"), 1), b("not stamped")));
      ReplicaClient.BytesResult read = spreading.get(b("hot-cas"));
      assertThat(read.outcome()).isEqualTo(Outcome.FAIL);
      assertThat(read.why()).contains("sub-key 1 of spread key 0x686f742d636173 holds a value"
          + " no spreading client wrote");
    }
    try (ReplicaClient longs = client().spreadKey(7L, 2, SpreadWrites.LINEARIZABLE).build()) {
      assertThat(longs.put(7L, 70).outcome()).isEqualTo(Outcome.OK);
      assertThat(longs.get(7L).value()).as("a spread long key reads back as a long")
          .isEqualTo(70L);
      assertThatThrownBy(() -> longs.cas(7L, 70L, 71))
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Test
  void aBadSpreadIsRefusedWithItsReason() {
    assertThatThrownBy(() -> client().spreadKey(HOT, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2..64 sub-keys: 1");
    assertThatThrownBy(() -> client().spreadKey(HOT, 65))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65");
    assertThatThrownBy(() -> client().spreadKey(new byte[0], 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be empty");
    assertThatThrownBy(() -> client().spreadKey(HOT, 2).spreadKey(b("hot"), 4))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spread twice");
    assertThatThrownBy(() -> client().spreadKey(KeySpreading.subKey(HOT, 0), 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("itself a sub-key");
    assertThatThrownBy(() -> client().spreadKey(new byte[ReplicaClient.MAX_KEY_BYTES - 7], 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("would be over the limit of 65536 bytes");
    try (ReplicaClient c = client().spreadKey(HOT, 2).build()) {
      assertThatThrownBy(() -> c.put(HOT, new byte[ReplicaClient.MAX_VALUE_BYTES - 16]))
          .as("the stamp must fit beside the value")
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("with its stamp (17 bytes) is over the limit of 8323072 bytes");
    }
  }

  @Test
  void byClocksAWriteFromAClientAnHourAheadBeatsALaterOneAndReadingFirstDoesNot() {
    long hour = Duration.ofHours(1).toMillis();
    for (SpreadWrites order : SpreadWrites.values()) {
      byte[] key = b("hot-" + order);
      // on different sub-keys: the later write cannot see the stamp it loses to
      try (ReplicaClient ahead = client().spreadKey(key, 4, order).subKeyChoiceForTest(w -> 0)
              .wallClockForTest(() -> System.currentTimeMillis() + hour).build();
          ReplicaClient onTime = client().spreadKey(key, 4, order).subKeyChoiceForTest(w -> 1)
              .build()) {
        ok(ahead.put(key, b("first")));
        ok(onTime.put(key, b("second"))); // starts after the first finished
        String read = s(onTime.get(key));
        if (order == SpreadWrites.LAST_WRITER_WINS) {
          assertThat(read).as("documented: last writer wins by clock, so the later write lost")
              .isEqualTo("first");
          ok(onTime.put(key, b("third"))); // it read the ahead stamp: its clock moved past it
          assertThat(s(ahead.get(key))).isEqualTo("third");
        } else {
          assertThat(read).as("linearizable: the later write wins").isEqualTo("second");
        }
      }
    }
  }

  @Test
  void aWriteToTheSubKeyAnotherClientAheadWroteIsStampedAfterItAndWins() {
    long hour = Duration.ofHours(1).toMillis();
    byte[] key = b("hot-same-sub-key");
    try (ReplicaClient ahead = client().spreadKey(key, 4).subKeyChoiceForTest(w -> 2)
            .wallClockForTest(() -> System.currentTimeMillis() + hour).build();
        ReplicaClient onTime = client().spreadKey(key, 4).subKeyChoiceForTest(w -> 2).build()) {
      ok(ahead.put(key, b("first")));
      ok(onTime.put(key, b("second"))); // reads sub-key 2 first: its stamp goes past the one there
      assertThat(s(ahead.get(key))).isEqualTo("second");
    }
  }

  /**
   * Threads of one linearizable spreading client each write the key in turn with a value of
   * their own: after each write a thread's read never returns an older write of its own, and
   * once all are done the key holds some thread's last write.
   */
  @Test
  void threadsWritingOneSpreadKeyAreOrderedByTheirStamps() throws Exception {
    byte[] key = b("hot-threads");
    int threads = 8;
    int writes = 25;
    try (ReplicaClient c = client().spreadKey(key, 4, SpreadWrites.LINEARIZABLE).build()) {
      List<Thread> running = new ArrayList<>();
      List<String> wrong = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int t = 0; t < threads; t++) {
        int thread = t;
        running.add(new Thread(() -> {
          for (int i = 0; i < writes; i++) {
            String value = thread + "-" + i;
            ReplicaClient.BytesResult put = c.put(key, b(value));
            if (put.outcome() != Outcome.OK) {
              wrong.add("put " + value + ": " + put);
              return;
            }
            ReplicaClient.BytesResult read = c.get(key);
            String got = read.value() == null ? null : new String(read.value(), UTF_8);
            if (read.outcome() != Outcome.OK || got == null) {
              wrong.add("read after " + value + ": " + read);
            } else if (got.startsWith(thread + "-")
                && Integer.parseInt(got.substring(got.indexOf('-') + 1)) < i) {
              wrong.add("read after " + value + " returned an older write of its own: " + got);
            }
          }
        }));
      }
      running.forEach(Thread::start);
      for (Thread t : running) {
        t.join();
      }
      assertThat(wrong).isEmpty();
      // a thread's later write reads its earlier one and is stamped above it, so the newest
      // write of all is some thread's last
      String last = s(c.get(key));
      assertThat(last).as("the key holds some thread's last write").endsWith("-" + (writes - 1));
    }
  }
}
