package io.partkit.replica.node;

import io.partkit.replica.Control;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A {@link ReplicaMigrationExecutor} for a coordinator, with every activation that moves
 * partitions checked against the control's table: when the coordinator hands over a table it
 * just committed, each partition whose row it changed is still led by its previous primary
 * (the source serves until the activation) and every node of its new row is a member the
 * control counts level (the coordinator commits only migrations ready to commit); once the
 * activation completed, its new primary leads it. It would find a {@code migrate} that
 * completed at once, or a cut-over made before the commit. The abilities are the executor's.
 */
final class CheckedActivations implements MigrationExecutor.MovesReplicas,
    MigrationExecutor.SplitsPartitions {

  private final ReplicaMigrationExecutor executor;
  private final Map<NodeId, Integer> numbers;
  /** What the checks found wrong, one line each. */
  final List<String> wrong = new CopyOnWriteArrayList<>();
  /** Activations that moved partitions, checked. */
  final AtomicInteger checked = new AtomicInteger();
  private PartitionAssignment last;

  CheckedActivations(ReplicaMigrationExecutor executor, Map<NodeId, Integer> numbers) {
    this.executor = executor;
    this.numbers = Map.copyOf(numbers);
  }

  @Override
  public CompletionStage<Migration> migrate(Migration migration) {
    return executor.migrate(migration);
  }

  @Override
  public CompletionStage<Migration> resume(Migration migration, PartitionAssignment committed) {
    return executor.resume(migration, committed);
  }

  @Override
  public CompletionStage<Void> prepareSplit(PartitionAssignment committed,
      PartitionAssignment split) {
    return executor.prepareSplit(committed, split);
  }

  @Override
  public synchronized CompletionStage<Void> activate(PartitionAssignment committed) {
    PartitionAssignment before = last;
    List<Integer> moved = new ArrayList<>();
    if (before != null && committed.epoch() > before.epoch()
        && committed.partitionCount() == before.partitionCount()) {
      for (int p = 0; p < committed.partitionCount(); p++) {
        if (!committed.replicas(p).equals(before.replicas(p))) {
          moved.add(p);
        }
      }
    }
    if (!moved.isEmpty()) {
      checked.incrementAndGet();
      wrong.addAll(look(committed, c -> {
        List<String> w = new ArrayList<>();
        SpanMap map = SpanMap.of(committed.scheme(), ReplicaMigrationExecutor.numberings(c));
        for (int p : moved) {
          for (int core : map.cores(p)) {
            int was = numbers.get(before.primary(p));
            if (c.primary(core) != was) {
              w.add("partition " + p + " at epoch " + committed.epoch() + " is led by node "
                  + c.primary(core) + " before its activation, not by its source " + was);
            }
            for (NodeId id : committed.replicas(p)) {
              int n = numbers.get(id);
              if (!c.configuration(core).members().contains(n)
                  || !c.levelMembers(core).contains(n)) {
                w.add("partition " + p + " at epoch " + committed.epoch() + ": node " + n
                    + " of its committed row is no level member at the commit: "
                    + c.configuration(core) + ", level " + c.levelMembers(core));
              }
            }
          }
        }
        return w;
      }));
    }
    CompletionStage<Void> activated = executor.activate(committed);
    return activated.thenApply(v -> {
      synchronized (this) {
        if (!moved.isEmpty()) {
          wrong.addAll(look(committed, c -> {
            List<String> w = new ArrayList<>();
            SpanMap map = SpanMap.of(committed.scheme(), ReplicaMigrationExecutor.numberings(c));
            for (int p : moved) {
              for (int core : map.cores(p)) {
                int now = numbers.get(committed.primary(p));
                if (c.primary(core) != now) {
                  w.add("partition " + p + " at epoch " + committed.epoch() + " is led by node "
                      + c.primary(core) + " once activated, not by " + now);
                }
              }
            }
            return w;
          }));
        }
        if (last == null || committed.epoch() >= last.epoch()) {
          last = committed;
        }
      }
      return v;
    });
  }

  /** {@code look} of the control's table, on its thread. */
  private List<String> look(PartitionAssignment committed, Function<Control, List<String>> look) {
    try {
      ReplicaNode control = executor.startedControl().toCompletableFuture()
          .get(30, TimeUnit.SECONDS);
      CompletableFuture<List<String>> seen = new CompletableFuture<>();
      control.inspect(c -> {
        try {
          seen.complete(look.apply(c));
        } catch (RuntimeException e) {
          seen.complete(List.of("cannot look at the table at epoch " + committed.epoch()
              + ": " + e));
        }
        return null;
      });
      return seen.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      return List.of("cannot look at the control: " + e);
    }
  }
}
