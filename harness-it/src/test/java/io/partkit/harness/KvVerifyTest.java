package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.verification.checker.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Short seeded runs of the real kvstore as processes on loopback: the correct store passes kills,
 * pauses, membership changes and faults aimed at migrations in flight, and each deliberately
 * broken store (a kvstore test fault) is caught. A green run only means something because the
 * same harness goes red on these.
 */
class KvVerifyTest {

  static final Path STORE = Path.of("target", "store");

  /**
   * The CI shape of a run, for every system's verify tests: 20 s of faults, 8 workers at 150
   * ops/s, fresh keys every 150 ops, stored under target/.
   */
  static VerifySpec.Builder ciRun(String system, int nodes, long seed, String... nemeses) {
    return VerifySpec.builder(system).nodes(nodes).nemeses(List.of(nemeses))
        .time(Duration.ofSeconds(20)).concurrency(8).rate(150).seed(seed).opsPerKey(150)
        .store(STORE);
  }

  static VerifySpec.Builder kv(long seed, String... nemeses) {
    return ciRun("kv", 4, seed, nemeses);
  }

  static RunResult run(VerifySpec spec) {
    RunResult r = VerifyRun.run(spec, System.out);
    System.out.println("seed " + spec.seed() + ": " + r.summary());
    return r;
  }

  @Test
  void correctKvPassesKillPauseMembershipAndMidMigrationFaults() throws Exception {
    RunResult r = run(kv(11, "kill", "pause", "membership", "migration").build());
    // the schedule guarantees its plan however loaded the machine (a count of faults in a fixed
    // time was a timed test: 2 instead of 3 at load average 6-20)
    assertThat(r.plannedFaults()).as("faults planned for 20 s").isEqualTo(3);
    assertThat(r.faults()).as("faults injected").isEqualTo(r.plannedFaults());
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    String history = Files.readString(r.dir().resolve("history.edn"));
    assertThat(history).contains(":process :nemesis", ":f :start-");
    assertThat(r.dir().resolve("index.html")).isNotEmptyFile();
    assertThat(r.dir().resolve("coord.log")).isNotEmptyFile();
  }

  @Test
  void kvOnAnEtcdMetadataStorePassesKillsAndMidMigrationFaults() {
    RunResult r = run(kv(15, "kill", "migration").options(Map.of("metadata", "etcd")).build());
    assertThat(r.faults()).as("faults injected").isEqualTo(r.plannedFaults()).isEqualTo(3);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(r.dir().resolve("m1.log")).as("the metadata etcd's log").isNotEmptyFile();
  }

  @Test
  void replicatedKvKeepsEveryAcknowledgedWriteWhenNodesAreLostForGood() throws Exception {
    // lose alone, so that every fault loses a node (a lose and its heal each wait for the
    // replica lists to be whole again, which on a loaded machine leaves time for one or two)
    RunResult r = run(kv(16, "lose").options(Map.of("replicas", "3")).build());
    String history = Files.readString(r.dir().resolve("history.edn"));
    assertThat(history).as("a node was lost for good, disk and all").containsPattern("lose n\\d");
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
  }

  @Test
  void replicatedKvPassesKillPauseMembershipAndLoss() {
    RunResult r = run(kv(19, "lose", "kill", "pause", "membership")
        .options(Map.of("replicas", "3")).build());
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(2);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
  }

  @Test
  void replicatedKvPassesFaultsAimedAtReplicaMovesInFlightAndEverythingSitsWhereTheTableSays()
      throws Exception {
    // with copies a move changes the replica list (no fenced source to catch): the nemesis
    // catches it as it starts, before the copy and the reconfiguration's fence; refused before
    RunResult r = run(kv(21, "migration").options(Map.of("replicas", "2")).build());
    assertThat(r.faults()).as("faults injected").isEqualTo(r.plannedFaults()).isEqualTo(3);
    String history = Files.readString(r.dir().resolve("history.edn"));
    assertThat(history).as("faults aimed at a replica move")
        .containsPattern("(pause (source|target)|kill coord mid-migration)"
            + " [^\"]*\\(partition \\d+ n\\d -> n\\d\\)");
    assertThat(r.placement()).as("the placement check ran").isPresent();
    assertThat(r.placement().get().checked()).as("partitions checked").isEqualTo(16);
    assertThat(r.placement().get().misplaced()).isEmpty();
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
  }

  @Test
  void acknowledgingBeforeReplicationIsCaughtByFaultsAimedAtReplicaMoves() {
    // the faults that catch replica moves bite: acknowledged writes the backups never got are
    // lost when a move makes such a backup the primary (seed 22: 244 of 1,742 lost, and 10 of
    // 16 partitions' backups short of their primary's keys in the placement check)
    RunResult r = run(kv(22, "migration")
        .options(Map.of("replicas", "2", "fault", "skip-replication")).build());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void acknowledgingBeforeReplicationIsCaughtByLosingNodes() {
    RunResult r = run(kv(17, "lose")
        .options(Map.of("replicas", "3", "fault", "skip-replication")).build());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
    assertThat(r.lostWrites().lost()).as("lost acknowledged writes").isNotEmpty();
  }

  @Test
  void losingNodesNeedsCopiesOnSeveralNodes() {
    assertThatThrownBy(() -> run(kv(18, "lose").build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nemesis lose cannot run here")
        .hasMessageContaining("replicas=1");
  }

  @Test
  void acknowledgingBeforeTheLogIsCaughtByKills() {
    RunResult r = run(kv(12, "kill").options(Map.of("fault", "ack-before-log")).build());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
    assertThat(r.lostWrites().lost()).as("lost acknowledged writes").isNotEmpty();
  }

  @Test
  void aFencedSourceThatKeepsServingIsCaughtByFaultsAimedAtMigrations() {
    // Since the pre-copy a source is fenced for tens of milliseconds per move, and membership
    // changes alone hit that window only by chance (1 run in 3 missed it). The
    // migration nemesis holds a move open after its fence (it pauses the target, say) for
    // seconds, while the broken source keeps taking writes that the committed copy lacks: seed
    // 13's schedule does that twice, and 3 runs of 3 lost 56-92 acknowledged writes.
    RunResult r = run(kv(13, "membership", "migration").opsPerKey(25)
        .options(Map.of("fault", "serve-while-fenced", "partitions", "8")).build());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void skippingTheEpochCheckIsCaughtByMembershipChanges() {
    // Many short-lived keys over few partitions: a worker whose table went stale while another
    // partition was its business then routes a fresh key to the old owner, which must refuse.
    RunResult r = run(kv(14, "membership").opsPerKey(25)
        .options(Map.of("fault", "skip-epoch-check", "partitions", "8")).build());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
  }
}
