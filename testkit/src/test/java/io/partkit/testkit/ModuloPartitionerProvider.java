package io.partkit.testkit;

import io.partkit.spi.HashSlots;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The textbook mistake, {@code owner = partition mod n}: balanced and deterministic, but almost
 * every partition changes owner when n changes. The kit must catch it.
 */
public final class ModuloPartitionerProvider implements PartitionerProvider {

  @Override
  public String name() {
    return "naive-modulo";
  }

  @Override
  public String description() {
    return "partition mod n: a deliberately bad strategy for testing the contract kit";
  }

  @Override
  public Partitioner create(PartitionerConfig config) {
    PartitionerConfig.Reader reader = config.reader("strategy 'naive-modulo'");
    int partitions = reader.intValue("partitions", 256, 1, 1 << 16);
    int replicas = reader.intValue("replicas", 1, 1, 7);
    reader.validate();
    return new Modulo(config, partitions, replicas);
  }

  private record Modulo(PartitionerConfig config, int partitions, int replicationFactor)
      implements Partitioner {
    @Override
    public String name() {
      return "naive-modulo";
    }

    @Override
    public PartitionAssignment place(MembershipView view, Optional<PartitionAssignment> previous,
        int replicas) {
      if (view.isEmpty()) {
        throw new IllegalArgumentException("no members to assign to");
      }
      if (replicas < 1 || replicas > MAX_REPLICAS) {
        throw new IllegalArgumentException(
            "replicas must be in 1.." + MAX_REPLICAS + ": " + replicas);
      }
      int rf = Math.min(replicas, view.size());
      List<List<NodeId>> table = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        List<NodeId> row = new ArrayList<>();
        for (int r = 0; r < rf; r++) {
          row.add(view.member((p + r) % view.size()).id());
        }
        table.add(row);
      }
      return PartitionAssignment.of(name(), 0, view.version(), HashSlots.of(partitions), table);
    }

    @Override
    public Optional<PartitionScheme> fixedScheme() {
      return Optional.of(HashSlots.of(partitions));
    }
  }
}
