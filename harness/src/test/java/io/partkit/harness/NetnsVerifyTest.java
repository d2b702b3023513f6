package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.NetnsPrerequisite;
import io.partkit.verification.checker.Verdict;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Short seeded runs with real network partitions: every node in its own network namespace, cuts
 * made of nftables drops. The correct kvstore and etcd pass.
 */
class NetnsVerifyTest {

  @BeforeAll
  static void needsNamespaces() {
    NetnsPrerequisite.require();
  }

  @Test
  void kvPassesMembershipKillAndPartitions() throws Exception {
    VerifySpec spec = KvVerifyTest.kv(21, "membership", "kill", "partition").withRuntime("netns");
    RunResult r = KvVerifyTest.run(spec);
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(3);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(Files.readString(r.dir().resolve("history.edn"))).contains(":f :start-partition");
  }

  @Test
  void etcdPassesKillAndPartitions() throws Exception {
    VerifySpec spec = VerifySpec.defaults("etcd").withNodes(3)
        .withNemeses(List.of("kill", "partition")).withTime(Duration.ofSeconds(20))
        .withConcurrency(8).withRate(150).withSeed(22).withOpsPerKey(150)
        .withStore(KvVerifyTest.STORE).withRuntime("netns");
    RunResult r = KvVerifyTest.run(spec);
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(3);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
  }
}
