package io.partkit.kvstore;

import io.partkit.spi.HashSlots;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * A small table strategy for these tests (the real "fixed" strategy lives in its own module,
 * which this one must not depend on): one replica per partition; partitions of departed members
 * and the surplus of members above ceil(P/N) go, in partition order, to the least loaded member
 * (ties by id). Deterministic and minimal for joins: only the surplus moves, only to the joiner.
 */
final class MinimalMovePartitioner implements Partitioner {

  private final int partitions;

  MinimalMovePartitioner(int partitions) {
    this.partitions = partitions;
  }

  @Override
  public String name() {
    return "test-minimal-move";
  }

  @Override
  public PartitionerConfig config() {
    return PartitionerConfig.of("partitions", partitions);
  }

  @Override
  public int replicationFactor() {
    return 1;
  }

  @Override
  public OptionalInt fixedPartitionCount() {
    return OptionalInt.of(partitions);
  }

  @Override
  public PartitionAssignment assign(MembershipView view, Optional<PartitionAssignment> previous) {
    if (view.isEmpty()) {
      throw new IllegalArgumentException("view must not be empty");
    }
    List<NodeId> ids = view.ids();
    NodeId[] owner = new NodeId[partitions];
    TreeMap<NodeId, Integer> load = new TreeMap<>();
    ids.forEach(id -> load.put(id, 0));
    Optional<PartitionAssignment> usable = previous.filter(p -> p.partitionCount() == partitions);
    int ceil = (partitions + ids.size() - 1) / ids.size();
    for (int p = 0; p < partitions; p++) {
      if (usable.isPresent()) {
        NodeId o = usable.get().primary(p);
        if (load.containsKey(o) && load.get(o) < ceil) {
          owner[p] = o;
          load.merge(o, 1, Integer::sum);
        }
      }
    }
    int floor = partitions / ids.size();
    // take from members above floor for members below floor, so a joiner gets its share
    for (int p = 0; p < partitions; p++) {
      NodeId least = least(load);
      if (owner[p] == null) {
        owner[p] = least;
        load.merge(least, 1, Integer::sum);
      } else if (load.get(owner[p]) > floor && load.get(least) < floor
          && load.get(owner[p]) > load.get(least) + 1) {
        load.merge(owner[p], -1, Integer::sum);
        owner[p] = least;
        load.merge(least, 1, Integer::sum);
      }
    }
    List<List<NodeId>> replicas = new ArrayList<>();
    for (NodeId o : owner) {
      replicas.add(List.of(o));
    }
    long epoch = previous.map(p -> p.epoch() + 1).orElse(1L);
    return PartitionAssignment.of(name(), epoch, view.version(), HashSlots.of(partitions), replicas);
  }

  private static NodeId least(TreeMap<NodeId, Integer> load) {
    NodeId best = null;
    for (var e : load.entrySet()) {
      if (best == null || e.getValue() < load.get(best)) {
        best = e.getKey();
      }
    }
    return best;
  }
}
