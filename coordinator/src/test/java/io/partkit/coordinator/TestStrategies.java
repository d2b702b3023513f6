package io.partkit.coordinator;

import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * Test strategies for load-aware planning, which differ in what they keep of a previous table
 * and nothing else, and skewed loads.
 */
final class TestStrategies {

  private TestStrategies() {}

  /**
   * {@code "sticky"}: keeps a previous table as it is when every node in it is live and its
   * shape fits; otherwise deals primaries round-robin in id order (ignoring weights, so weighted
   * nodes start unbalanced) with backups on the next members in id order that add a new zone,
   * then any. Keeps any load move: the planner's "any counts" level.
   */
  static Partitioner sticky(int partitions, int replicas) {
    return new Base("sticky", partitions, replicas, true);
  }

  /**
   * {@code "recompute"}: the same first placement every time, whatever the previous table (as
   * rendezvous hashing recomputes from hashes): keeps no load move.
   */
  static Partitioner recomputing(int partitions, int replicas) {
    return new Base("recompute", partitions, replicas, false);
  }

  private static final class Base implements Partitioner {
    private final String name;
    private final int partitions;
    private final int replicas;
    private final boolean keeps;

    Base(String name, int partitions, int replicas, boolean keeps) {
      this.name = name;
      this.partitions = partitions;
      this.replicas = replicas;
      this.keeps = keeps;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public PartitionerConfig config() {
      return PartitionerConfig.of("partitions", partitions, "replicas", replicas);
    }

    @Override
    public int replicationFactor() {
      return replicas;
    }

    @Override
    public PartitionAssignment place(MembershipView view, Optional<PartitionAssignment> previous,
        int rf) {
      int r = Math.min(rf, view.size());
      if (keeps && previous.isPresent() && previous.get().partitionCount() == partitions
          && previous.get().replicationFactor() == r
          && view.ids().containsAll(previous.get().nodes())) {
        return PartitionAssignment.of(name, 0, view.version(), HashSlots.of(partitions),
            previous.get().replicaTable());
      }
      List<Member> members = view.members();
      int n = members.size();
      List<List<NodeId>> rows = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        LinkedHashSet<Member> row = new LinkedHashSet<>();
        row.add(members.get(p % n));
        for (int k = 1; k < n && row.size() < r; k++) { // new zones first
          Member m = members.get((p + k) % n);
          if (row.stream().noneMatch(x -> x.zone().equals(m.zone()))) {
            row.add(m);
          }
        }
        for (int k = 1; k < n && row.size() < r; k++) {
          row.add(members.get((p + k) % n));
        }
        rows.add(row.stream().map(Member::id).toList());
      }
      return PartitionAssignment.of(name, 0, view.version(), HashSlots.of(partitions), rows);
    }
  }

  /**
   * Zipf loads ({@code 1 / rank^s}) over a random permutation of the partitions, scaled to
   * about 1000 operations per second in total: a few hot partitions, a long cold tail.
   */
  static double[] zipf(long seed, int partitions, double s) {
    Random random = new Random(seed);
    List<Integer> order = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      order.add(p);
    }
    java.util.Collections.shuffle(order, random);
    double[] loads = new double[partitions];
    double sum = 0;
    for (int rank = 0; rank < partitions; rank++) {
      loads[order.get(rank)] = 1 / Math.pow(rank + 1, s);
      sum += loads[order.get(rank)];
    }
    for (int p = 0; p < partitions; p++) {
      loads[p] *= 1000 / sum;
    }
    return loads;
  }

  /** Loads of {@code table} with every partition at {@code load}. */
  static PartitionLoads uniform(PartitionAssignment table, double load) {
    double[] l = new double[table.partitionCount()];
    java.util.Arrays.fill(l, load);
    return PartitionLoads.of(table.epoch(), l);
  }
}
