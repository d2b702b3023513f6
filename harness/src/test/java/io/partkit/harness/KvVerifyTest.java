package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;

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

  static VerifySpec kv(long seed, String... nemeses) {
    return VerifySpec.defaults("kv").withNodes(4).withNemeses(List.of(nemeses))
        .withTime(Duration.ofSeconds(20)).withConcurrency(8).withRate(150).withSeed(seed)
        .withOpsPerKey(150).withStore(STORE);
  }

  static RunResult run(VerifySpec spec) {
    RunResult r = Verifier.run(spec, System.out);
    System.out.println("seed " + spec.seed() + ": " + r.summary());
    return r;
  }

  @Test
  void correctKvPassesKillPauseMembershipAndMidMigrationFaults() throws Exception {
    RunResult r = run(kv(11, "kill", "pause", "membership", "migration"));
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(3);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    String history = Files.readString(r.dir().resolve("history.edn"));
    assertThat(history).contains(":process :nemesis", ":f :start-");
    assertThat(r.dir().resolve("index.html")).isNotEmptyFile();
    assertThat(r.dir().resolve("coord.log")).isNotEmptyFile();
  }

  @Test
  void kvOnAnEtcdMetadataStorePassesKillsAndMidMigrationFaults() {
    RunResult r = run(kv(15, "kill", "migration").withOptions(Map.of("metadata", "etcd")));
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(3);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(r.dir().resolve("m1.log")).as("the metadata etcd's log").isNotEmptyFile();
  }

  @Test
  void acknowledgingBeforeTheLogIsCaughtByKills() {
    RunResult r = run(kv(12, "kill").withOptions(Map.of("fault", "ack-before-log")));
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
    assertThat(r.lostWrites().lost()).as("lost acknowledged writes").isNotEmpty();
  }

  @Test
  void aFencedSourceThatKeepsServingIsCaughtByMembershipChanges() {
    RunResult r = run(kv(13, "membership").withOptions(Map.of("fault", "serve-while-fenced")));
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void skippingTheEpochCheckIsCaughtByMembershipChanges() {
    // Many short-lived keys over few partitions: a worker whose table went stale while another
    // partition was its business then routes a fresh key to the old owner, which must refuse.
    RunResult r = run(kv(14, "membership").withOpsPerKey(25)
        .withOptions(Map.of("fault", "skip-epoch-check", "partitions", "8")));
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
  }
}
