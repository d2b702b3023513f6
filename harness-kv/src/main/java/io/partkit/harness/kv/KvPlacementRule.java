package io.partkit.harness.kv;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether the nodes hold what a committed table says: the rule both the placement check after a
 * run and the end of a rebalance ({@code bench --live}) apply, as pure code over the nodes' LIST
 * answers, so that the two cannot disagree and the rule is tested without a cluster.
 */
final class KvPlacementRule {

  private KvPlacementRule() {}

  /**
   * The partitions of {@code table} that the running nodes do not hold as it says, one line
   * each: its row must hold {@code min(replicas, members)} distinct members; its primary OWNS
   * it; each backup holds it as a BACKUP at the primary's epoch with as many keys; every other
   * node that answered holds nothing of it. {@code held} maps each node that answered to its
   * LIST answer (a partition it never held is missing from it, as from LIST); a replica that did
   * not answer is out of place.
   */
  static List<String> misplaced(PartitionAssignment table, Set<String> members, int replicas,
      Map<String, Map<Integer, PartitionStatus>> held) {
    List<String> wrong = new ArrayList<>();
    int copies = Math.min(replicas, members.size());
    for (int p = 0; p < table.partitionCount(); p++) {
      List<String> row = table.replicas(p).stream().map(n -> n.value()).toList();
      String where = "partition " + p + " (epoch " + table.epoch() + ", replicas " + row + ")";
      if (row.size() != copies || new TreeSet<>(row).size() != row.size()
          || !members.containsAll(row)) {
        wrong.add(where + ": the table should hold " + copies + " distinct members of "
            + members);
        continue;
      }
      if (!held.containsKey(row.get(0))) {
        wrong.add(where + ": primary " + row.get(0) + " does not answer");
        continue;
      }
      PartitionStatus primary = held.get(row.get(0)).get(p);
      if (primary == null || primary.state() != PartitionState.OWNED) {
        wrong.add(where + ": " + row.get(0) + " holds " + primary + ", not OWNED");
        continue;
      }
      for (String backup : row.subList(1, row.size())) {
        PartitionStatus s = held.getOrDefault(backup, Map.of()).get(p);
        if (!held.containsKey(backup)) {
          wrong.add(where + ": backup " + backup + " does not answer");
        } else if (s == null || s.state() != PartitionState.BACKUP
            || s.epoch() != primary.epoch() || s.keys() != primary.keys()) {
          wrong.add(where + ": backup " + backup + " holds " + s + " (primary " + primary
              + ")");
        }
      }
      for (Map.Entry<String, Map<Integer, PartitionStatus>> e : held.entrySet()) {
        PartitionStatus s = e.getValue().get(p);
        if (!row.contains(e.getKey()) && s != null && s.state() != PartitionState.ABSENT) {
          wrong.add(where + ": " + e.getKey() + " still holds " + s);
        }
      }
    }
    return wrong;
  }
}
