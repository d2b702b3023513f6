package io.partkit.bench;

import io.partkit.spi.MembershipView;
import java.util.Optional;

/**
 * Something whose placement is measured: a partkit strategy with a configuration, or a native
 * placement of another system driven through its real library code.
 */
interface Subject extends AutoCloseable {

  /** Name in the report and on the command line, e.g. {@code rendezvous-bounded}. */
  String name();

  /** One line: what it is and how it is driven. */
  String description();

  /** Why this subject cannot be measured for this combination (shown in the report), or empty. */
  default Optional<String> unsupported(int nodes, Weights weights, int replicas) {
    return Optional.empty();
  }

  /**
   * The placement for {@code view}.
   *
   * @param previous the subject's placement before the membership change, for subjects that
   *     build on it (minimal-move rebalancers); empty for a first placement
   */
  Placement place(MembershipView view, int replicas, Optional<Placement> previous);

  /** True when only the last member can leave (jump hash drops its highest bucket). */
  default boolean leavesLast() {
    return false;
  }

  /**
   * True when {@link #place} is a pure computation whose time and allocation mean planning cost.
   */
  default boolean planningMeasurable() {
    return true;
  }

  /**
   * True when the subject is a running system whose state follows the last {@link #place} call
   * (embedded members): the harness then returns it to the base view before measuring a leave.
   */
  default boolean stateful() {
    return false;
  }

  @Override
  default void close() {}
}
