package io.partkit.backend.ignite;

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
 * Test-only strategies, registered in this module's test {@code META-INF/services}, that pin the
 * adapter's mechanics in {@code PartkitAffinityFunctionTest} with tables simpler to predict than
 * the real strategies' (those, {@code fixed} and {@code rendezvous}, are test dependencies and
 * run in {@code IgniteClusterTest}):
 * <ul>
 *   <li>{@code test-modulo}: partition p's replicas are members {@code p, p+1, ...} (mod n) in
 *       id order; ignores the previous assignment. Simple to predict, so a test can compute
 *       where Ignite must put each key.
 *   <li>{@code test-sticky}: keeps the previous table while all its replicas are still members
 *       (and the replica count matches), else acts like {@code test-modulo}: shows whether the
 *       previous assignment reaches the strategy.
 *   <li>{@code test-ring}: has no fixed partition count, like a token ring.
 * </ul>
 */
final class TestStrategies {

  private TestStrategies() {}

  /** Provider of {@code test-modulo}. */
  public static final class Modulo implements PartitionerProvider {
    @Override
    public String name() {
      return "test-modulo";
    }

    @Override
    public String description() {
      return "test only: replicas p, p+1, ... mod n";
    }

    @Override
    public Partitioner create(PartitionerConfig config) {
      return new Impl(name(), config, false, true);
    }
  }

  /** Provider of {@code test-sticky}. */
  public static final class Sticky implements PartitionerProvider {
    @Override
    public String name() {
      return "test-sticky";
    }

    @Override
    public String description() {
      return "test only: keeps the previous table while it can";
    }

    @Override
    public Partitioner create(PartitionerConfig config) {
      return new Impl(name(), config, true, true);
    }
  }

  /** Provider of {@code test-ring}. */
  public static final class Ring implements PartitionerProvider {
    @Override
    public String name() {
      return "test-ring";
    }

    @Override
    public String description() {
      return "test only: no fixed partition count";
    }

    @Override
    public Partitioner create(PartitionerConfig config) {
      return new Impl(name(), config, false, false);
    }
  }

  /** The modulo table, optionally sticky, optionally without a fixed count. */
  static final class Impl implements Partitioner {
    private final String name;
    private final PartitionerConfig config;
    private final boolean sticky;
    private final boolean fixed;
    private final int partitions;
    private final int replicas;

    Impl(String name, PartitionerConfig config, boolean sticky, boolean fixed) {
      PartitionerConfig.Reader reader = config.reader("strategy '" + name + "'");
      this.partitions = reader.intValue("partitions", 64, 1, 65_000);
      this.replicas = reader.intValue("replicas", 1, 1, 16);
      reader.validate();
      this.name = name;
      this.config = config;
      this.sticky = sticky;
      this.fixed = fixed;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public PartitionerConfig config() {
      return config;
    }

    @Override
    public int replicationFactor() {
      return replicas;
    }

    @Override
    public Optional<PartitionScheme> fixedScheme() {
      return fixed ? Optional.of(HashSlots.of(partitions)) : Optional.empty();
    }

    @Override
    public PartitionAssignment place(MembershipView view, Optional<PartitionAssignment> previous,
        int replicas) {
      if (view.isEmpty()) {
        throw new IllegalArgumentException("the membership view must not be empty");
      }
      long epoch = 0; // unstamped, as the SPI says
      int rf = Math.min(replicas, view.size());
      if (sticky && previous.isPresent() && previous.get().replicationFactor() == rf
          && previous.get().partitionCount() == partitions
          && view.ids().containsAll(previous.get().nodes())) {
        return PartitionAssignment.of(name, epoch, view.version(), HashSlots.of(partitions),
            previous.get().replicaTable());
      }
      List<List<NodeId>> table = new ArrayList<>(partitions);
      for (int p = 0; p < partitions; p++) {
        List<NodeId> list = new ArrayList<>(rf);
        for (int r = 0; r < rf; r++) {
          list.add(view.member((p + r) % view.size()).id());
        }
        table.add(list);
      }
      return PartitionAssignment.of(name, epoch, view.version(), HashSlots.of(partitions), table);
    }
  }
}
