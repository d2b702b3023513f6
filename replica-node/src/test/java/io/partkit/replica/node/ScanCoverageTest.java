package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Bytes;
import io.partkit.replica.Numbering;
import io.partkit.replica.node.ReplicaClient.Row;
import io.partkit.replica.node.ReplicaClient.Table;
import io.partkit.spi.HashSlots;
import io.partkit.spi.hash.KeyHash;
import io.partkit.spi.KeyRanges;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which partitions a scan asks, and in what order ({@link ReplicaClient#inKeyOrder}). */
class ScanCoverageTest {

  /** Key ranges cut at 0x10, 0x20 and 0x30, the third ([0x20, 0x30)) then split at 0x28. */
  private static Table ranges() {
    KeyRanges scheme = KeyRanges.of(List.of(new byte[] {0x10}, new byte[] {0x20},
        new byte[] {0x30}));
    Numbering split = Numbering.of(scheme, 2).split(2, Bytes.of(new byte[] {0x28}));
    List<Row> rows = new ArrayList<>();
    rows.add(new Row(0, Numbering.of(scheme, 0), 0, 1));
    rows.add(new Row(1, Numbering.of(scheme, 1), 0, 1));
    // out of key order on purpose: partition 6 ([0x28, 0x30)) before 2 and 3
    rows.add(new Row(6, split, 0, 1));
    rows.add(new Row(2, split, 0, 1));
    rows.add(new Row(3, Numbering.of(scheme, 3), 0, 1));
    return new Table(true, rows, null);
  }

  private static List<Integer> asked(Table t, int from, Integer to) {
    return ReplicaClient.inKeyOrder(t, Bytes.of(new byte[] {(byte) from}),
        to == null ? null : Bytes.of(new byte[] {(byte) (int) to})).orElseThrow().stream()
        .map(Row::partition).toList();
  }

  @Test
  void aTableOfKeyRangesIsAskedOnlyWhereItsRangesMeetTheScansInKeyOrder() {
    Table t = ranges();
    assertThat(t.rows().get(2).numbering().holds(6, Bytes.of(new byte[] {0x29}))).isTrue();
    assertThat(asked(t, 0x00, null)).containsExactly(0, 1, 2, 6, 3);
    assertThat(asked(t, 0x12, 0x2a)).containsExactly(1, 2, 6);
    assertThat(asked(t, 0x20, 0x28)).as("a range ends where the next one starts")
        .containsExactly(2);
    assertThat(asked(t, 0x28, 0x29)).containsExactly(6);
    assertThat(asked(t, 0x31, null)).containsExactly(3);
    assertThat(asked(t, 0x05, 0x06)).containsExactly(0);
    assertThat(asked(t, 0x10, 0x10)).as("an empty scan meets no range").isEmpty();
  }

  @Test
  void hashedKeysMayBeInAnyPartitionSoEveryOneIsAsked() {
    Numbering hashed = Numbering.of(new HashSlots(4, KeyHash.MURMUR3_128), 0);
    List<Row> rows = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      rows.add(new Row(p, hashed, 0, 1));
    }
    assertThat(ReplicaClient.inKeyOrder(new Table(true, rows, null), Bytes.of(new byte[] {1}),
        Bytes.of(new byte[] {2}))).isEqualTo(Optional.empty());
  }
}
