package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.NetnsPrerequisite;
import io.partkit.verification.checker.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Short seeded runs with real network partitions: every node in its own network namespace, cuts
 * made of nftables drops. The kv store (the replica cores) and etcd pass; the kv store with a
 * planted bug is caught.
 */
class NetnsVerifyTest {

  @BeforeAll
  static void needsNamespaces() {
    NetnsPrerequisite.require();
  }

  @Test
  void kvPassesMembershipKillAndPartitions() throws Exception {
    passesWithPartitions(KvVerifyTest.kv(21, "membership", "kill", "partition"));
  }

  /**
   * The kv store ({@code --system kv}, its replica cores) with its control's state in etcd and a
   * standby control, each process in its own namespace: cuts among data nodes and controls make
   * primaries suspect their backups and a control find nodes down that clients still reach, and
   * kills hit the leading control too, so a control is elected again across the namespaces'
   * network and restores from etcd.
   */
  @Test
  void replicaCoresPassKillsAndPartitions() throws Exception {
    RunResult r = passesWithPartitions(KvVerifyTest.ciRun("kv", 5, 43, "kill",
        "partition").options(Map.of("metadata", "etcd")));
    // seed 43 cuts a control off from some nodes, then kills the leading control: the
    // recovery's settled table needs a control elected after it, from the state in etcd (the
    // standby, or the killed one started again)
    String history = Files.readString(r.dir().resolve("history.edn"));
    assertThat(history).containsPattern("\"partition [a-z-]+ \\{[^}]*control2?=")
        .containsPattern("\"kill control2?\"");
    String logs = Files.readString(r.dir().resolve("control.log"))
        + Files.readString(r.dir().resolve("control2.log"));
    assertThat(Pattern.compile("control control2?: elected in").matcher(logs).results().count())
        .as("elections of a control").isGreaterThanOrEqualTo(2);
    assertThat(logs).contains("control: state read from etcd store");
  }

  /**
   * Primaries that acknowledge writes before their backups hold them ({@code
   * async-replication}): a cut that leaves a primary reachable by the clients but not by its
   * backups has it acknowledge writes that only it holds, and the control fails the partition
   * over to a backup without them. Kills do not catch it (a killed primary's replication is
   * already on the wire), nor does a move on processes reliably.
   */
  @Test
  void acknowledgingBeforeReplicationIsCaughtByCuts() {
    RunResult r = KvVerifyTest.run(KvVerifyTest.ciRun("kv", 5, 3, "partition")
        .time(Duration.ofSeconds(30))
        .options(Map.of("mutant", "async-replication")).runtime("netns").build());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
  }

  /**
   * Runs {@code spec} in network namespaces: valid, over a hundred acknowledged writes checked,
   * at least three faults struck and a partition among them.
   */
  private static RunResult passesWithPartitions(VerifySpec.Builder spec) throws IOException {
    RunResult r = KvVerifyTest.run(spec.runtime("netns").build());
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(3);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(Files.readString(r.dir().resolve("history.edn"))).contains(":f :start-partition");
    return r;
  }

  @Test
  void etcdPassesKillAndPartitions() throws Exception {
    VerifySpec spec = VerifySpec.builder("etcd").nodes(3)
        .nemeses(List.of("kill", "partition")).time(Duration.ofSeconds(20))
        .concurrency(8).rate(150).seed(22).opsPerKey(150)
        .store(KvVerifyTest.STORE).runtime("netns").build();
    RunResult r = KvVerifyTest.run(spec);
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(3);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
  }
}
