package io.partkit.test.support;

import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * A {@link MigrationExecutor} for coordinator tests: it moves no data, records every call,
 * measures how many migrations were in flight at once, and can be told to hold migrations
 * forever, to simulate a crash mid-migration) or to roll some back. It records every table it
 * is asked to {@link #activate} and can be told to fail activations.
 *
 * <p>Migrations complete on another thread than the caller's (like a real executor's network
 * callbacks), so a coordinator that waits for them is exercised for real.
 *
 * <p>It has none of the optional abilities: the coordinator hands it primary moves only. {@link
 * WholeReplicaLists} is the same recorder with two of them.
 */
public sealed class RecordingMigrationExecutor implements MigrationExecutor
    permits RecordingMigrationExecutor.WholeReplicaLists {

  private final List<Migration> migrated = new ArrayList<>();
  private final List<Migration> resumed = new ArrayList<>();
  private final List<PartitionAssignment> activated = new ArrayList<>();
  private volatile boolean failActivations;
  private final List<Held> held = new ArrayList<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger maxInFlight = new AtomicInteger();
  private volatile boolean hold;
  private volatile Predicate<Migration> rollBack = m -> false;

  /**
   * From now on, migrations stay in flight (the process "crashed" mid-migration, or its copies
   * take long) until {@link #releaseHeld}.
   */
  public RecordingMigrationExecutor holdMigrations() {
    hold = true;
    return this;
  }

  /** Finishes every migration held so far, as one not held finishes, and holds no more. */
  public RecordingMigrationExecutor releaseHeld() {
    hold = false;
    List<Held> release;
    synchronized (this) {
      release = new ArrayList<>(held);
      held.clear();
    }
    release.forEach(h -> finish(h.future(), h.migration()));
    return this;
  }

  /** A migration held in flight and the future its caller waits on. */
  private record Held(CompletableFuture<Migration> future, Migration migration) {}

  /** Migrations matching {@code p} roll back (complete exceptionally). */
  public RecordingMigrationExecutor rollBackWhen(Predicate<Migration> p) {
    rollBack = p;
    return this;
  }

  @Override
  public CompletionStage<Migration> migrate(Migration migration) {
    synchronized (this) {
      migrated.add(migration);
    }
    return run(migration);
  }

  /** From now on, {@link #activate} completes exceptionally (still recording the table). */
  public RecordingMigrationExecutor failActivations(boolean fail) {
    failActivations = fail;
    return this;
  }

  @Override
  public CompletionStage<Void> activate(PartitionAssignment committed) {
    synchronized (this) {
      activated.add(committed);
    }
    return failActivations
        ? CompletableFuture.failedFuture(new IllegalStateException("activation failed by the test"))
        : CompletableFuture.runAsync(() -> { });
  }

  /**
   * A migration the committed table already decided is finished (or rolled back when the table
   * does not make its target the owner) at once; any other runs as {@link #migrate} does.
   */
  @Override
  public CompletionStage<Migration> resume(Migration migration, PartitionAssignment committed) {
    synchronized (this) {
      resumed.add(migration);
    }
    if (committed.epoch() >= migration.targetEpoch()) {
      boolean taken = migration.partition() < committed.partitionCount()
          && committed.primary(migration.partition()).equals(migration.target());
      return taken ? CompletableFuture.completedFuture(migration)
          : CompletableFuture.failedFuture(new IllegalStateException(
              "the table at epoch " + committed.epoch() + " did not commit " + migration));
    }
    return run(migration);
  }

  private CompletionStage<Migration> run(Migration m) {
    int now = inFlight.incrementAndGet();
    maxInFlight.accumulateAndGet(now, Math::max);
    CompletableFuture<Migration> f = new CompletableFuture<>();
    if (hold) {
      synchronized (this) {
        held.add(new Held(f, m));
      }
      return f;
    }
    CompletableFuture.runAsync(() -> finish(f, m));
    return f;
  }

  private void finish(CompletableFuture<Migration> f, Migration m) {
    // leave the count before completing: the caller may start the next one inside complete()
    inFlight.decrementAndGet();
    if (rollBack.test(m)) {
      f.completeExceptionally(new IllegalStateException("rolled back by the test: " + m));
    } else {
      f.complete(m);
    }
  }

  /** Number of migrations held now. */
  public synchronized int heldCount() {
    return held.size();
  }

  /** Every {@link #migrate} call so far, in call order. */
  public synchronized List<Migration> migrated() {
    return List.copyOf(migrated);
  }

  /** Every {@link #resume} call so far, in call order. */
  public synchronized List<Migration> resumed() {
    return List.copyOf(resumed);
  }

  /** Every table passed to {@link #activate} so far, in call order. */
  public synchronized List<PartitionAssignment> activated() {
    return List.copyOf(activated);
  }

  /** Most migrations in flight at one moment. */
  public int maxInFlight() {
    return maxInFlight.get();
  }
  /**
   * A recording executor that moves whole replica lists ({@link
   * MigrationExecutor.MovesReplicas}: the coordinator hands it a migration for every change of a
   * row, backups included) and reports lost replicas ({@link
   * MigrationExecutor.ReportsLostReplicas}, none unless told otherwise by {@link
   * #reportingLost}).
   */
  public static final class WholeReplicaLists extends RecordingMigrationExecutor
      implements MigrationExecutor.MovesReplicas, MigrationExecutor.ReportsLostReplicas {

    private volatile BiFunction<PartitionAssignment, Set<NodeId>, Map<Integer, Set<NodeId>>>
        lost = (table, members) -> Map.of();

    /** What {@link #lostReplicas} answers from now on (it may throw, as a failing report). */
    public WholeReplicaLists reportingLost(
        BiFunction<PartitionAssignment, Set<NodeId>, Map<Integer, Set<NodeId>>> report) {
      lost = report;
      return this;
    }

    @Override
    public Map<Integer, Set<NodeId>> lostReplicas(PartitionAssignment committed,
        Set<NodeId> members) {
      return lost.apply(committed, members);
    }

    @Override
    public WholeReplicaLists holdMigrations() {
      super.holdMigrations();
      return this;
    }

    @Override
    public WholeReplicaLists rollBackWhen(Predicate<Migration> p) {
      super.rollBackWhen(p);
      return this;
    }

    @Override
    public WholeReplicaLists failActivations(boolean fail) {
      super.failActivations(fail);
      return this;
    }
  }
}
