package io.partkit.harness.kv;

import io.partkit.replica.Bytes;
import io.partkit.replica.Record.Checkpoint;
import io.partkit.replica.Role;
import io.partkit.replica.node.ReplicaClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;

/**
 * The kv system's placement rule, decided on what the nodes hold durably: where each
 * partition of the control's table is stored, compared with where the table says.
 */
final class KvPlacement {

  private KvPlacement() {}

  /**
   * One line per partition not stored where {@code rows} (the control's table) say: its primary
   * ({@code nodes.get(row.primary())}) holds it as primary at the row's epoch and modulus, in a
   * configuration of {@code copies} members; each backup of that configuration holds it at that
   * epoch under that primary with exactly the primary's keys and values; no other node holds any
   * of its keys; and every key the primary holds is one the partition numbers.
   *
   * @param held what each node holds durably, by node name, then partition
   */
  static List<String> misplaced(List<ReplicaClient.Row> rows, List<String> nodes, int copies,
      Map<String, Map<Integer, Checkpoint>> held) {
    List<String> misplaced = new ArrayList<>();
    for (ReplicaClient.Row row : rows) {
      int p = row.partition();
      String where = "partition " + p + " (epoch " + row.epoch() + ", primary "
          + name(nodes, row.primary()) + ")";
      Checkpoint primary = held.getOrDefault(name(nodes, row.primary()), Map.of()).get(p);
      if (primary == null || primary.role() != Role.PRIMARY || primary.epoch() != row.epoch()
          || !primary.numbering().equals(row.numbering())) {
        misplaced.add(where + ": its primary holds " + describe(primary));
        continue;
      }
      List<Integer> members = new ArrayList<>();
      members.add(row.primary());
      members.addAll(primary.backups());
      if (members.size() != copies) {
        misplaced.add(where + ": " + members.size() + " members " + names(nodes, members)
            + ", expected " + copies);
      }
      long foreign = primary.data().keySet().stream()
          .filter(k -> !row.numbering().holds(p, k)).count();
      if (foreign > 0) {
        misplaced.add(where + ": its primary holds " + foreign + " keys outside the partition's "
            + row.numbering().describe(p));
      }
      for (int b : primary.backups()) {
        Checkpoint backup = held.getOrDefault(name(nodes, b), Map.of()).get(p);
        if (backup == null || backup.role() != Role.BACKUP || backup.epoch() != row.epoch()
            || backup.primary() != row.primary()) {
          misplaced.add(where + ": backup " + name(nodes, b) + " holds " + describe(backup));
        } else if (!backup.data().equals(primary.data())) {
          misplaced.add(where + ": backup " + name(nodes, b) + " holds " + backup.data().size()
              + " keys, the primary " + primary.data().size() + differences(primary.data(),
                  backup.data()));
        }
      }
      for (int i = 0; i < nodes.size(); i++) {
        Checkpoint other = held.getOrDefault(nodes.get(i), Map.of()).get(p);
        if (!members.contains(i) && other != null && !other.data().isEmpty()) {
          misplaced.add(where + ": " + nodes.get(i) + ", no member, holds "
              + other.data().size() + " of its keys");
        }
      }
    }
    return misplaced;
  }

  private static String differences(SortedMap<Bytes, Bytes> primary,
      SortedMap<Bytes, Bytes> backup) {
    for (Map.Entry<Bytes, Bytes> e : primary.entrySet()) {
      if (!Objects.equals(backup.get(e.getKey()), e.getValue())) {
        return " (first difference: key " + e.getKey() + ", " + e.getValue() + " on the primary, "
            + backup.get(e.getKey()) + " on the backup)";
      }
    }
    return " (the backup holds keys the primary does not)";
  }

  private static String describe(Checkpoint c) {
    return c == null ? "nothing of it" : "it as " + c.role() + " at epoch " + c.epoch()
        + ", modulus " + c.numbering().modulus() + ", " + c.data().size() + " keys";
  }

  private static String name(List<String> nodes, int number) {
    return number >= 0 && number < nodes.size() ? nodes.get(number) : "node " + number;
  }

  private static List<String> names(List<String> nodes, List<Integer> numbers) {
    return numbers.stream().map(n -> name(nodes, n)).toList();
  }
}
