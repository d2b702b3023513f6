package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.NetnsPrerequisite;
import io.partkit.verification.checker.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Short seeded runs with real network partitions: every node in its own network namespace, cuts
 * made of nftables drops. The correct kvstore, the replica core's driver and etcd pass.
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
   * The replica core's driver ({@code --system replica}) with its control's state in etcd and a
   * standby control, each process in its own namespace: cuts between data nodes (the controls
   * still reach each) make primaries suspect their backups, and kills hit the leading control
   * too, so the standby takes over across the namespaces' network.
   */
  @Test
  void replicaCoresPassKillsAndPartitions() throws Exception {
    RunResult r = passesWithPartitions(KvVerifyTest.ciRun("replica", 5, 23, "kill",
        "partition").options(Map.of("metadata", "etcd")));
    // seed 23 kills the leading control
    assertThat(Files.readString(r.dir().resolve("control2.log")))
        .as("the standby's log: it took over").contains("control control2: elected in");
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
