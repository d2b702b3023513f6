package io.partkit.harness.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Bytes;
import io.partkit.replica.Numbering;
import io.partkit.replica.Record.Checkpoint;
import io.partkit.replica.Role;
import io.partkit.replica.node.ReplicaClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The replica placement rule on hand-made node states: one partition numbered at modulus 2 of a
 * table of base 2, primary n1, backup n2, n3 no member.
 */
class KvPlacementRuleTest {

  private static final List<String> NODES = List.of("n1", "n2", "n3");
  private static final Numbering NUMBERING = new Numbering.Hashed(2, 2);
  private static final List<ReplicaClient.Row> TABLE = List.of(new ReplicaClient.Row(0,
      NUMBERING, 0, 5));

  /** Keys that partition 0 numbers at modulus 2 (or, {@code owned} false, that it does not). */
  private static SortedMap<Bytes, Bytes> keys(boolean owned, int count) {
    SortedMap<Bytes, Bytes> data = new TreeMap<>();
    for (long k = 0; data.size() < count; k++) {
      if (NUMBERING.holds(0, Bytes.ofLong(k)) == owned) {
        data.put(Bytes.ofLong(k), Bytes.ofLong(k + 100));
      }
    }
    return data;
  }

  private static Checkpoint copy(Role role, long epoch, List<Integer> backups,
      SortedMap<Bytes, Bytes> data) {
    return new Checkpoint(0, epoch, true, role, 0, backups, false, 1, 2, true, data.size(),
        NUMBERING, false, 1, 1, data);
  }

  private static Map<String, Map<Integer, Checkpoint>> held(Checkpoint n1, Checkpoint n2,
      Checkpoint n3) {
    Map<String, Map<Integer, Checkpoint>> held = new HashMap<>();
    held.put("n1", n1 == null ? Map.of() : Map.of(0, n1));
    held.put("n2", n2 == null ? Map.of() : Map.of(0, n2));
    held.put("n3", n3 == null ? Map.of() : Map.of(0, n3));
    return held;
  }

  @Test
  void holdsWhenThePrimaryAndItsBackupHoldTheSameKeysAtTheTablesEpoch() {
    SortedMap<Bytes, Bytes> data = keys(true, 5);
    assertThat(KvPlacement.misplaced(TABLE, NODES, 2, held(
        copy(Role.PRIMARY, 5, List.of(1), data), copy(Role.BACKUP, 5, List.of(), data),
        null))).isEmpty();
  }

  @Test
  void namesEachWayACopyIsNotWhereTheTableSays() {
    SortedMap<Bytes, Bytes> data = keys(true, 5);
    SortedMap<Bytes, Bytes> fewer = new TreeMap<>(data);
    fewer.remove(fewer.firstKey());
    assertThat(KvPlacement.misplaced(TABLE, NODES, 2, held(
        copy(Role.PRIMARY, 5, List.of(1), data), copy(Role.BACKUP, 5, List.of(), fewer),
        null))).singleElement().asString().contains("backup n2 holds 4 keys, the primary 5");
    assertThat(KvPlacement.misplaced(TABLE, NODES, 2, held(
        copy(Role.PRIMARY, 5, List.of(1), data), copy(Role.BACKUP, 4, List.of(), data),
        copy(Role.ABSENT, 3, List.of(), keys(true, 1))))).satisfiesExactlyInAnyOrder(
            line -> assertThat(line).contains("backup n2 holds it as BACKUP at epoch 4"),
            line -> assertThat(line).contains("n3, no member, holds 1 of its keys"));
    assertThat(KvPlacement.misplaced(TABLE, NODES, 3, held(
        copy(Role.PRIMARY, 5, List.of(1), data), copy(Role.BACKUP, 5, List.of(), data),
        null))).singleElement().asString().contains("2 members [n1, n2], expected 3");
    SortedMap<Bytes, Bytes> foreign = keys(false, 2);
    assertThat(KvPlacement.misplaced(TABLE, NODES, 2, held(
        copy(Role.PRIMARY, 5, List.of(1), foreign), copy(Role.BACKUP, 5, List.of(), foreign),
        null))).singleElement().asString()
        .contains("2 keys outside the partition's keys numbered 0 modulo 2");
    assertThat(KvPlacement.misplaced(TABLE, NODES, 2, held(null,
        copy(Role.BACKUP, 5, List.of(), data), null))).singleElement().asString()
        .contains("primary n1").contains("its primary holds nothing of it");
  }
}
