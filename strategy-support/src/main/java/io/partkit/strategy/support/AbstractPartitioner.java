package io.partkit.strategy.support;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import java.util.List;
import java.util.Optional;

/**
 * The skeleton of a partkit strategy, written once: its name, configuration, default replica
 * count and fixed scheme, and the part of {@link #place} every strategy needs before placing
 * anything (arguments checked, the replica count capped at the view's size, a previous table it
 * cannot build on dropped). A strategy writes {@link #compute} and, when it builds on previous
 * tables of another kind than its own name and fixed scheme, {@link #buildsOn}.
 *
 * <p>Epochs are not a strategy's business (see {@link Partitioner}): {@link #assignment} builds
 * the result at epoch 0 and {@link Partitioner#assign(MembershipView, Optional)} stamps it.
 */
public abstract class AbstractPartitioner implements Partitioner {

  private final String name;
  private final PartitionerConfig config;
  private final int replicas;
  /** Null when the scheme follows membership. */
  private final PartitionScheme fixedScheme;

  /**
   * @param replicas the default replica count (the {@code replicas} option)
   * @param fixedScheme the scheme of every assignment, or null when it follows membership
   */
  protected AbstractPartitioner(String name, PartitionerConfig config, int replicas,
      PartitionScheme fixedScheme) {
    this.name = requireNonNull(name, "name");
    this.config = requireNonNull(config, "config");
    this.replicas = CommonOptions.checkReplicas(replicas);
    this.fixedScheme = fixedScheme;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final PartitionerConfig config() {
    return config;
  }

  @Override
  public final int replicationFactor() {
    return replicas;
  }

  @Override
  public final Optional<PartitionScheme> fixedScheme() {
    return Optional.ofNullable(fixedScheme);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Checks the arguments, drops a previous table {@link #buildsOn} rejects, and hands
   * {@link #compute} the replica count capped at the view's size.
   */
  @Override
  public final PartitionAssignment place(MembershipView view,
      Optional<PartitionAssignment> previous, int replicas) {
    requireNonNull(view, "view");
    requireNonNull(previous, "previous");
    CommonOptions.checkReplicas(replicas);
    if (view.isEmpty()) {
      throw new IllegalArgumentException("membership view must not be empty: " + view);
    }
    return compute(view, previous.filter(this::buildsOn), Math.min(replicas, view.size()));
  }

  /**
   * The placement proper, given checked arguments.
   *
   * @param view a non-empty view
   * @param previous the previous table, only when {@link #buildsOn} accepted it
   * @param rf replicas per partition, in {@code 1..view.size()}
   * @return the table, built with {@link #assignment}
   */
  protected abstract PartitionAssignment compute(MembershipView view,
      Optional<PartitionAssignment> previous, int rf);

  /**
   * Whether {@code previous} can be built on: by default, computed by this strategy (same name)
   * and, with a fixed scheme, over that scheme (another partition count is another table). Its
   * replication factor may differ.
   */
  protected boolean buildsOn(PartitionAssignment previous) {
    return previous.strategy().equals(name)
        && (fixedScheme == null || previous.scheme().equals(fixedScheme));
  }

  /** This strategy's table for {@code view}: {@code rows.get(p)} is partition p's replicas. */
  protected final PartitionAssignment assignment(MembershipView view, PartitionScheme scheme,
      List<List<NodeId>> rows) {
    return PartitionAssignment.of(name, 0, view.version(), scheme, rows); // epoch: the caller's
  }
}
