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
 * Short seeded runs of partkit's kv store (its replica cores, {@code --system kv}) as processes
 * on loopback, in the shape every system's CI runs share: the correct store passes kills,
 * pauses, membership changes and faults aimed at migrations in flight, and the store with a
 * planted bug (a mutant the simulator also plants) is caught. A green run only means something
 * because the same harness goes red on these. harness-kv's {@code KvSystemVerifyTest} runs the
 * store's own faults (splits, a partkit coordinator, etcd, lost nodes).
 */
class KvVerifyTest {

  static final Path STORE = Path.of("target", "store");

  /**
   * Writes acknowledged but never logged, with one copy of each partition: a kill of the node
   * that holds it loses them.
   */
  static final Map<String, String> UNLOGGED_WRITES =
      Map.of("replicas", "1", "mutant", "unlogged-writes");

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
    assertThat(r.dir().resolve("control.log")).isNotEmptyFile();
  }

  @Test
  void replicatedKvPassesKillPauseMembershipAndLoss() {
    RunResult r = run(kv(19, "lose", "kill", "pause", "membership").build());
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(2);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
  }

  @Test
  void losingNodesNeedsCopiesOnSeveralNodes() {
    assertThatThrownBy(() -> run(kv(18, "lose").options(Map.of("replicas", "1")).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nemesis lose cannot run here")
        .hasMessageContaining("replicas=1");
  }

  @Test
  void acknowledgingWritesNeverLoggedIsCaughtByKills() {
    RunResult r = run(kv(12, "kill").options(UNLOGGED_WRITES).build());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
    assertThat(r.lostWrites().lost()).as("lost acknowledged writes").isNotEmpty();
  }
}
