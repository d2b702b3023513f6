package io.partkit.kvstore.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.kvstore.node.KvNode;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.HashSlots;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spread-key mitigation over two real nodes in this JVM: where the writes go, what a read
 * returns, what is refused, and the price of ordering by clocks (a client whose clock runs an
 * hour ahead wins over a later write) that {@link SpreadWrites#LINEARIZABLE} does not pay.
 */
class KeySpreadingTest {

  private static final int PARTITIONS = 8;
  private static final byte[] HOT = b("hot");

  @TempDir Path dir;
  private final List<KvNode> nodes = new ArrayList<>();
  private final Map<NodeId, String> addresses = new HashMap<>();
  private PartitionAssignment table;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @BeforeEach
  void twoNodesOwningFourPartitionsEach() throws IOException {
    List<List<NodeId>> owners = new ArrayList<>();
    for (String id : List.of("a", "b")) {
      KvNode node = KvNode.start(NodeId.of(id), dir.resolve(id), 0);
      nodes.add(node);
      addresses.put(node.id(), node.hostAndPort());
    }
    for (int p = 0; p < PARTITIONS; p++) {
      owners.add(List.of(nodes.get(p % 2).id()));
    }
    table = PartitionAssignment.of("test", 1, 0, HashSlots.of(PARTITIONS), owners);
    for (int p = 0; p < PARTITIONS; p++) {
      try (TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(
          addresses.get(table.primary(p)), Duration.ofSeconds(10))) {
        assertThat(c.admin(Wire.ASSIGN, p, 1).isOk()).isTrue();
      }
    }
  }

  @AfterEach
  void stopNodes() {
    nodes.forEach(KvNode::close);
  }

  private KvClient.Builder client() {
    return KvClient.builder().tables(() -> table).addresses(addresses::get);
  }

  private long served(ClusterLoad load, int partition, java.util.function.ToLongFunction<
      PartitionLoad> what) {
    return what.applyAsLong(load.partition(partition));
  }

  @Test
  void writesGoToTheSubKeysPartitionsAndReadsReturnTheNewest() {
    Set<Integer> subPartitions = new HashSet<>();
    for (int i = 0; i < 4; i++) {
      subPartitions.add(table.partitionOf(KeySpreading.subKey(HOT, i)));
    }
    int home = table.partitionOf(HOT);
    assertThat(subPartitions).as("the sub-keys hash to several partitions").hasSizeGreaterThan(1);
    try (KvClient plain = client().build();
        KvClient spreading = client().spreadKey(HOT, 4).build()) {
      plain.put(HOT, b("before"));
      assertThat(spreading.get(HOT)).as("a value from before the spread is read")
          .isEqualTo(b("before"));
      ClusterLoad before = spreading.load();
      for (int i = 0; i < 200; i++) {
        spreading.put(HOT, b("v" + i));
      }
      assertThat(spreading.get(HOT)).isEqualTo(b("v199"));
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
      assertThat(plain.get(HOT)).as("a client that does not spread sees the old value")
          .isEqualTo(b("before"));
    }
  }

  @Test
  void compareAndSetOfASpreadKeyIsRefusedAndForeignSubKeyValuesAreNamed() {
    try (KvClient plain = client().build();
        KvClient spreading = client().spreadKey(HOT, 3).build()) {
      assertThatThrownBy(() -> spreading.cas(HOT, null, b("x")))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("compare-and-set of key 0x686f74 is refused");
      assertThat(spreading.cas(b("other"), null, b("x"))).as("other keys are not affected")
          .isTrue();
      plain.put(KeySpreading.subKey(HOT, 1), b("not stamped"));
      assertThatThrownBy(() -> spreading.get(HOT)).isInstanceOf(KvException.class)
          .hasMessageContaining("sub-key 1 of spread key 0x686f74 holds a value no spreading"
              + " client wrote");
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
  }

  @Test
  void byClocksAWriteFromAClientAnHourAheadBeatsALaterOneAndReadingFirstDoesNot() {
    long hour = Duration.ofHours(1).toMillis();
    for (SpreadWrites order : SpreadWrites.values()) {
      byte[] key = b("hot-" + order);
      // on different sub-keys: the later write cannot see the stamp it loses to
      try (KvClient ahead = client().spreadKey(key, 4, order).subKeyChoiceForTest(ways -> 0)
              .wallClockForTest(() -> System.currentTimeMillis() + hour).build();
          KvClient onTime = client().spreadKey(key, 4, order).subKeyChoiceForTest(ways -> 1)
              .build()) {
        ahead.put(key, b("first"));
        onTime.put(key, b("second")); // starts after the first finished
        String read = new String(onTime.get(key), UTF_8);
        if (order == SpreadWrites.LAST_WRITER_WINS) {
          assertThat(read).as("documented: last writer wins by clock, so the later write lost")
              .isEqualTo("first");
          onTime.put(key, b("third")); // it read the ahead stamp: its clock moved past it
          assertThat(new String(ahead.get(key), UTF_8)).isEqualTo("third");
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
    try (KvClient ahead = client().spreadKey(key, 4).subKeyChoiceForTest(ways -> 2)
            .wallClockForTest(() -> System.currentTimeMillis() + hour).build();
        KvClient onTime = client().spreadKey(key, 4).subKeyChoiceForTest(ways -> 2).build()) {
      ahead.put(key, b("first"));
      onTime.put(key, b("second")); // reads sub-key 2 first: its stamp goes past the one there
      assertThat(new String(ahead.get(key), UTF_8)).isEqualTo("second");
    }
  }
}
