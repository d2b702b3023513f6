package io.partkit.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Providers for {@link PartitionersTest}: some work, some are broken on purpose. */
final class TestProviders {

  private TestProviders() {}

  /** Everything on the first member: enough to be a provider, not a strategy anyone should use. */
  private record FirstMember(String name, PartitionerConfig config) implements Partitioner {
    @Override
    public int replicationFactor() {
      return 1;
    }

    @Override
    public PartitionAssignment place(MembershipView view, Optional<PartitionAssignment> previous,
        int replicas) {
      List<List<NodeId>> table = new ArrayList<>();
      table.add(List.of(view.member(0).id()));
      return PartitionAssignment.of(name, 0, view.version(), HashSlots.of(1), table);
    }
  }

  public static final class Alpha implements PartitionerProvider {
    @Override
    public String name() {
      return "alpha";
    }

    @Override
    public String description() {
      return "test provider";
    }

    @Override
    public Partitioner create(PartitionerConfig config) {
      return new FirstMember(name(), config);
    }
  }

  public static final class Beta implements PartitionerProvider {
    @Override
    public String name() {
      return "beta";
    }

    @Override
    public String description() {
      return "test provider";
    }

    @Override
    public Partitioner create(PartitionerConfig config) {
      return new FirstMember(name(), config);
    }
  }

  public static final class Throwing implements PartitionerProvider {
    public Throwing() {
      throw new IllegalStateException("constructor refuses");
    }

    @Override
    public String name() {
      return "throwing";
    }

    @Override
    public String description() {
      return "never constructed";
    }

    @Override
    public Partitioner create(PartitionerConfig config) {
      throw new AssertionError();
    }
  }

  /** Claims a name that {@link Alpha} already has. */
  public static final class AlphaAgain implements PartitionerProvider {
    @Override
    public String name() {
      return "alpha";
    }

    @Override
    public String description() {
      return "duplicate";
    }

    @Override
    public Partitioner create(PartitionerConfig config) {
      throw new AssertionError();
    }
  }
}
