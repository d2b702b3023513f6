package io.partkit.kvstore.migration;

import io.partkit.kvstore.migration.ReconcilePlan.Action;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.IntPredicate;

/**
 * Carries out a {@link ReconcilePlan}: issues its node operations in order, once each, checks
 * the conditions the plan leaves to run time, reports the moves' steps to the listener and what
 * failed to {@code problems}. It decides nothing the plan did not.
 */
final class ReconcileRun {

  private final NodeCalls calls;
  private final BiConsumer<Migration, MigrationStep> listener;
  /** Whether a migration of the partition runs (or waits for its commit) here now. */
  private final IntPredicate movingHere;

  ReconcileRun(NodeCalls calls, BiConsumer<Migration, MigrationStep> listener,
      IntPredicate movingHere) {
    this.calls = calls;
    this.listener = listener;
    this.movingHere = movingHere;
  }

  /**
   * Issues the plan's actions.
   *
   * @return the number of node operations that succeeded
   */
  int carryOut(ReconcilePlan plan, List<String> problems) {
    problems.addAll(plan.problems());
    // moves whose ACTIVATE or ABORT failed: some node may still take them in, so their
    // sources stay fenced
    Set<String> unsettled = new HashSet<>();
    int ops = 0;
    for (Action a : plan.actions()) {
      switch (a.kind()) {
        case ACTIVATE, ABORT -> {
          boolean activate = a.kind() == ReconcilePlan.Kind.ACTIVATE;
          if (calls.tryCall(a.node(), activate ? Wire.ACTIVATE : Wire.ABORT, a.partition(),
              a.epoch())) {
            ops++;
            if (activate && a.other() != null) {
              listener.accept(new Migration(a.partition(), a.other(), a.node(), a.epoch()),
                  MigrationStep.COMMITTED);
            }
          } else {
            unsettled.add(a.move());
            problems.add(a.kind() + " of partition " + a.partition() + " on " + a.node()
                + " failed");
          }
        }
        case UNFENCE -> {
          if (!unsettled.contains(a.move())
              && calls.tryCall(a.node(), Wire.UNFENCE, a.partition(), a.epoch())) {
            ops++;
          }
        }
        case DROP_SOURCE -> {
          NodeId owner = a.other();
          if (!calls.serves(owner, a.partition())) {
            problems.add("partition " + a.partition() + " is not served by its owner " + owner
                + " yet; " + a.node() + " keeps it fenced");
          } else if (calls.tryCall(a.node(), Wire.DROP, a.partition(), a.epoch())) {
            ops++;
            listener.accept(new Migration(a.partition(), a.node(), owner, a.epoch()),
                MigrationStep.SOURCE_DROPPED);
          } else {
            problems.add("DROP of partition " + a.partition() + " on " + a.node() + " failed");
          }
        }
        case DROP_STALE -> {
          if (!movingHere.test(a.partition())
              && calls.tryCall(a.node(), Wire.DROP, a.partition(), a.epoch())) {
            ops++;
          }
        }
        default -> throw new AssertionError(a);
      }
    }
    return ops;
  }
}
