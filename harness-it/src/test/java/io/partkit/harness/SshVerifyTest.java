package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.RuntimeSpec;
import io.partkit.harness.runtime.SshHosts;
import io.partkit.verification.checker.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Short seeded runs on the SSH runtime: five hosts, each a network namespace with its own sshd
 * (10.79.K.0/24), the nodes uploaded, started, faulted and cut off over SSH only. The kv store
 * (the replica cores) and etcd pass; the kv store with a planted bug is caught.
 */
class SshVerifyTest {

  private static SshHosts hosts;

  @BeforeAll
  static void startHosts() throws Exception {
    hosts = SshHosts.start(Path.of("/tmp", "partkit-ssh-verify-" + ProcessHandle.current().pid()),
        5);
  }

  @AfterAll
  static void stopHosts() {
    if (hosts != null) {
      hosts.close();
    }
  }

  private static RuntimeSpec runtime() {
    return hosts.runtime();
  }

  @Test
  void kvPassesKillPausePartitionAndMembershipOverSsh() throws Exception {
    // seed 79's schedule: membership, kill, partition, pause. Over SSH on a loaded machine a
    // leave and a kill with its restart take 6-9 s each: 30 s leaves room for the partition
    // (which came at 21 s in 20 s runs); the pause may fall past the end (SshRuntimeTest
    // pauses a node on its host for sure).
    VerifySpec spec = KvVerifyTest.kv(79, "kill", "pause", "partition", "membership")
        .time(Duration.ofSeconds(30)).runtime(runtime()).build();
    RunResult r = KvVerifyTest.run(spec);
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(3);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(Files.readString(r.dir().resolve("history.edn"))).contains(":f :start-partition",
        ":f :start-kill", ":f :start-membership");
    assertThat(r.dir().resolve("control.log")).isNotEmptyFile();
    // each host's listing of what the run kept there, fetched before its directory was removed
    assertThat(Files.readString(r.dir().resolve("ssh-" + hosts.addresses().get(0)
        + "-files.txt"))).contains("./files/data/n1");
    assertNothingLeftOnTheHosts();
  }

  @Test
  void etcdPassesKillsAndPartitionsOverSsh() throws Exception {
    VerifySpec spec = KvVerifyTest.ciRun("etcd", 3, 54, "kill", "partition").runtime(runtime())
        .build();
    RunResult r = KvVerifyTest.run(spec);
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(3);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertNothingLeftOnTheHosts();
  }

  @Test
  void acknowledgingBeforeTheLogIsCaughtOverSsh() throws Exception {
    RunResult r = KvVerifyTest.run(KvVerifyTest.kv(12, "kill")
        .options(KvVerifyTest.UNLOGGED_WRITES).runtime(runtime()).build());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
    assertNothingLeftOnTheHosts();
  }

  /** The hosts share this machine's disk, so the test (never the runtime) can look. */
  private static void assertNothingLeftOnTheHosts() throws Exception {
    Path runs = hosts.runsDir();
    try (Stream<Path> left = Files.list(runs)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .as("run directories left on the hosts").allMatch(n -> n.equals("cache"));
    }
  }
}
