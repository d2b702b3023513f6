package io.partkit.coordinator;

import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which of the backups the data plane reports as suspected the coordinator takes out: only
 * backups of the committed row, never its primary (the primary asked; a primary that cannot
 * reach the coordinator is not asking, and one that is deposed is fenced by the epoch anyway).
 * Pure, so the rule is tested without a cluster.
 */
final class SuspectedBackups {

  private SuspectedBackups() {}

  /** The reports that hold, by partition; partitions with nothing to take out are left out. */
  static Map<Integer, Set<NodeId>> removable(PartitionAssignment table,
      Map<Integer, Set<NodeId>> reported) {
    Map<Integer, Set<NodeId>> removable = new TreeMap<>();
    reported.forEach((p, nodes) -> {
      if (p < 0 || p >= table.partitionCount()) {
        return;
      }
      List<NodeId> row = table.replicas(p);
      Set<NodeId> out = new TreeSet<>();
      for (NodeId n : nodes) {
        if (row.indexOf(n) > 0) {
          out.add(n);
        }
      }
      if (!out.isEmpty()) {
        removable.put(p, out);
      }
    });
    return removable;
  }
}
