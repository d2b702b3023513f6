package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.coordinator.MetadataStores;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.testkit.MigrationExecutorContractKit;
import io.partkit.testkit.MigrationExecutorContractKit.WriteOutcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;

/**
 * The migration contract kit on the replica cores ({@link ReplicaMigrationExecutor}) over two
 * in-process nodes on loopback and the embedded metadata store, which also keeps the control's
 * state ({@link ReplicaMigrationCluster}).
 *
 * <p>Two of the kit's clauses cannot hold for the cores, and are disabled by name with the
 * reason ({@link CoreClauses}); what of them does hold is asserted by {@link
 * #migrateStopsWithTheTargetLevelTheSourceServingUntilActivateHandsOver}.
 */
@ExtendWith(ReplicaMigrationContractTest.CoreClauses.class)
class ReplicaMigrationContractTest extends MigrationExecutorContractKit {

  @TempDir Path dir;
  private ReplicaMigrationCluster cluster;

  @Override
  protected MigrationCluster newCluster() throws Exception {
    cluster = new ReplicaMigrationCluster(MetadataStores.embedded(dir.resolve("meta.json")), dir);
    return cluster;
  }

  @Override
  protected Duration migrationTimeout() {
    return Duration.ofSeconds(60);
  }

  /**
   * The kit's clauses the cores do not meet, each with why. The cores fence by configuration
   * epochs between the control, the primaries and the backups, never by a client's epoch, and
   * a move's target is a backup of the partition from the moment it joins.
   */
  static final class CoreClauses implements ExecutionCondition {

    static final Map<String, String> NOT_FOR_THE_CORES = Map.of(
        "aWriteWithAStaleEpochIsRejectedByTheNewOwner",
        "a core request carries no epoch: the primary at its configuration serves every request "
            + "that reaches it, whatever table the client routed by (the key's owner answers, "
            + "so nothing stale is served); the old owner refuses, which the other clauses check",
        "migrateStopsAtReadyToCommitAndActivateMakesTheTargetServe",
        "the source is not fenced when migrate completes: it goes on serving, every write "
            + "replicated to the joined, level target, until activate has the control drain it "
            + "and hand over at a new epoch; the rest of the clause is "
            + "migrateStopsWithTheTargetLevelTheSourceServingUntilActivateHandsOver");

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      Optional<String> why = context.getTestMethod()
          .map(m -> NOT_FOR_THE_CORES.get(m.getName()));
      return why.isPresent()
          ? ConditionEvaluationResult.disabled("not a clause the replica cores meet: " + why.get())
          : ConditionEvaluationResult.enabled("a clause the replica cores meet");
    }
  }

  /**
   * What the kit's {@code migrateStopsAtReadyToCommitAndActivateMakesTheTargetServe} asks that
   * holds for the cores, and what they do instead of fencing the source: once {@code migrate}
   * completed, the target is a level backup and refuses writes; the source still accepts them
   * (and its backup, the target, takes them); after the commit and {@code activate} the target
   * serves, the source refuses, and every acknowledged write is read back, the source's last one
   * included.
   */
  @Test
  void migrateStopsWithTheTargetLevelTheSourceServingUntilActivateHandsOver() throws Exception {
    PartitionAssignment t = cluster.table();
    NodeId source = t.primary(0);
    NodeId target = t.nodes().stream().filter(n -> !n.equals(source)).findFirst().orElseThrow();
    Migration m = new Migration(0, source, target, t.epoch() + 1);
    Map<String, String> acked = new LinkedHashMap<>();
    for (int i = 0; i < 50; i++) {
      String key = cluster.keyIn(0, i);
      assertThat(cluster.write(source, 0, t.epoch(), key, "v" + i))
          .isEqualTo(WriteOutcome.ACCEPTED);
      acked.put(key, "v" + i);
    }
    cluster.record(m);
    assertThat(cluster.executor().migrate(m).toCompletableFuture())
        .succeedsWithin(migrationTimeout()).isEqualTo(m);
    assertThat(cluster.step(m)).as("ready to commit").isEqualTo(ReplicaMigrationCluster.LEVEL);
    String key = cluster.keyIn(0, 0);
    assertThat(cluster.write(target, 0, m.targetEpoch(), key, "early"))
        .as("the target before the commit").isEqualTo(WriteOutcome.REJECTED);
    assertThat(cluster.write(source, 0, t.epoch(), key, "still the source's"))
        .as("the source before the commit: not fenced, it serves").isEqualTo(WriteOutcome.ACCEPTED);
    acked.put(key, "still the source's");
    cluster.commit(m);
    assertThat(cluster.step(m)).as("committed, not activated")
        .isEqualTo(ReplicaMigrationCluster.COMMITTED);
    assertThat(cluster.write(source, 0, t.epoch(), key, "before activate"))
        .as("the source until activate").isEqualTo(WriteOutcome.ACCEPTED);
    acked.put(key, "before activate");
    assertThat(cluster.executor().activate(cluster.table()).toCompletableFuture())
        .succeedsWithin(migrationTimeout());
    assertThat(cluster.step(m)).isEqualTo(ReplicaMigrationCluster.SERVING);
    assertThat(cluster.write(source, 0, t.epoch(), key, "late"))
        .as("the source after activate").isEqualTo(WriteOutcome.REJECTED);
    for (Map.Entry<String, String> e : acked.entrySet()) {
      assertThat(cluster.read(e.getKey())).as("acknowledged %s=%s", e.getKey(), e.getValue())
          .contains(e.getValue());
    }
    String other = cluster.keyIn(0, 1);
    assertThat(cluster.write(target, 0, m.targetEpoch(), other, "served"))
        .as("the target after activate").isEqualTo(WriteOutcome.ACCEPTED);
    assertThat(cluster.read(other)).contains("served");
  }

  /**
   * A migration {@code migrate} completed and the coordinator abandoned (its wave's commit kept
   * the old row): {@code activate} with that table has the joined copy leave again, the source
   * serving throughout.
   */
  @Test
  void anAbandonedMigrationsJoinedCopyLeavesAgainAndTheSourceGoesOnServing() throws Exception {
    PartitionAssignment t = cluster.table();
    NodeId source = t.primary(0);
    NodeId target = t.nodes().stream().filter(n -> !n.equals(source)).findFirst().orElseThrow();
    Migration m = new Migration(0, source, target, t.epoch() + 1);
    String key = cluster.keyIn(0, 0);
    assertThat(cluster.write(source, 0, t.epoch(), key, "before")).isEqualTo(
        WriteOutcome.ACCEPTED);
    cluster.record(m);
    assertThat(cluster.executor().migrate(m).toCompletableFuture())
        .succeedsWithin(migrationTimeout());
    assertThat(cluster.step(m)).isEqualTo(ReplicaMigrationCluster.LEVEL);
    cluster.abandon(m);
    assertThat(cluster.executor().activate(cluster.table()).toCompletableFuture())
        .succeedsWithin(migrationTimeout());
    long deadline = System.nanoTime() + migrationTimeout().toNanos();
    while (!cluster.step(m).equals("ROLLED_BACK") && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(cluster.step(m)).as("the joined copy left").isEqualTo("ROLLED_BACK");
    assertThat(cluster.write(source, 0, t.epoch(), key, "after")).isEqualTo(
        WriteOutcome.ACCEPTED);
    assertThat(cluster.write(target, 0, m.targetEpoch(), key, "wrong"))
        .isEqualTo(WriteOutcome.REJECTED);
    assertThat(cluster.read(key)).contains("after");
  }
}
