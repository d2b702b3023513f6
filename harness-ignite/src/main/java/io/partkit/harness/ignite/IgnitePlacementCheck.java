package io.partkit.harness.ignite;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * partkit's offline prediction of where Ignite keeps every partition, compared with what Ignite
 * reports.
 *
 * <p>The prediction replays the server topologies Ignite went through since the cache was
 * created, the way {@code PartkitAffinityFunction} is called: a view of the servers by
 * consistent id (sorted by {@link MembershipView}) at each topology version, {@code backups + 1}
 * replicas (all servers when there are fewer), and the previous table as the history. A
 * stateless strategy ({@code rendezvous}) only needs the final topology; a history-dependent one
 * ({@code fixed}) needs the chain, which is why the node reports its discovery history and not
 * just the final servers. Comparing partitions compares every key: Ignite routes a key with the
 * function's own {@code partition(key)}.
 */
final class IgnitePlacementCheck {

  /** One topology version and its servers' consistent ids. */
  record Topology(long version, List<String> servers) {}

  private static final int MAX_LISTED = 10;

  private IgnitePlacementCheck() {}

  /**
   * The strategy's table for the last topology of {@code history} (oldest first, starting at
   * the version the cache was created in), each table built on the one before.
   */
  static PartitionAssignment predict(String strategy, int partitions, int backups,
      List<Topology> history) {
    Optional<PartitionAssignment> previous = Optional.empty();
    List<String> last = null;
    PartitionAssignment table = null;
    for (Topology t : history) {
      if (t.servers().equals(last) || t.servers().isEmpty()) {
        continue; // a client event or an empty moment: Ignite does not reassign
      }
      last = t.servers();
      List<Member> members = t.servers().stream().map(Member::of).toList();
      int replicas = backups >= members.size() - 1 ? members.size() : backups + 1;
      Partitioner p = Partitioners.load().create(strategy,
          PartitionerConfig.of("partitions", partitions).with("replicas", replicas));
      table = p.assign(MembershipView.of(Math.max(0, t.version()), members), previous);
      // as the adapter rebuilds Ignite's previous ideal table: the lists only, no epoch
      List<List<NodeId>> lists = new ArrayList<>(partitions);
      for (int part = 0; part < partitions; part++) {
        lists.add(table.replicas(part));
      }
      previous = Optional.of(PartitionAssignment.of(strategy, 0, 0, table.scheme(), lists));
    }
    if (table == null) {
      throw new IllegalArgumentException("no topology with servers in " + history);
    }
    return table;
  }

  /**
   * What differs between the predicted table and Ignite's owners per partition (primary first);
   * empty when they agree.
   */
  static List<String> compare(PartitionAssignment predicted, List<List<String>> ignite) {
    List<String> problems = new ArrayList<>();
    if (ignite.size() != predicted.partitionCount()) {
      problems.add("Ignite reports " + ignite.size() + " partitions, partkit predicts "
          + predicted.partitionCount());
      return problems;
    }
    int differing = 0;
    for (int part = 0; part < ignite.size(); part++) {
      List<String> expected = predicted.replicas(part).stream().map(NodeId::value).toList();
      if (!expected.equals(ignite.get(part))) {
        if (differing++ < MAX_LISTED) {
          problems.add("partition " + part + ": Ignite " + ignite.get(part) + ", partkit "
              + expected);
        }
      }
    }
    if (differing > MAX_LISTED) {
      problems.add("... " + differing + " of " + ignite.size() + " partitions differ");
    }
    return problems;
  }
}
