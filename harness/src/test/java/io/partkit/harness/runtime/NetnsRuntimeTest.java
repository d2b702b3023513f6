package io.partkit.harness.runtime;

import static io.partkit.harness.runtime.EchoNodes.eventually;
import static io.partkit.harness.runtime.EchoNodes.harnessAsk;
import static io.partkit.harness.runtime.EchoNodes.nodeAsk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The netns runtime on the real kernel: needs root, iproute2 and nftables. Without them it is
 * skipped, except under CI=true where it fails (CI must run it).
 */
class NetnsRuntimeTest {

  private static final String PREFIX = "partkit-" + ProcessHandle.current().pid() + "-";

  @TempDir Path tmp;

  @BeforeAll
  static void needsRootIpAndNft() {
    NetnsPrerequisite.require();
  }

  @Test
  void partitionDropsNodeToNodePacketsButNotTheHarnessAndHealRestores() throws Exception {
    try (NetnsRuntime rt = new NetnsRuntime(tmp)) {
      rt.open(List.of("n1", "n2", "n3"));
      Map<String, NodeProcess> p = new LinkedHashMap<>();
      for (String n : List.of("n1", "n2", "n3")) {
        p.put(n, EchoNodes.start(rt, n, tmp));
      }
      for (String n : p.keySet()) {
        assertThat(rt.host(n)).matches("10\\.77\\.\\d+\\.\\d+");
        assertThat(rt.port(n, "echo", EchoNodes.PORT)).isEqualTo(EchoNodes.PORT);
        eventually("the harness reaches " + n, () -> harnessAsk(rt, n), "ok " + n);
      }
      eventually("n1 reaches n2", () -> nodeAsk(p.get("n1"), rt.host("n2")), "ok n2");

      rt.partition(Map.of("n1", Set.of("n2"), "n2", Set.of("n1")));

      assertThat(nodeAsk(p.get("n1"), rt.host("n2"))).startsWith("fail SocketTimeoutException");
      assertThat(nodeAsk(p.get("n2"), rt.host("n1"))).startsWith("fail SocketTimeoutException");
      eventually("n1 still reaches n3", () -> nodeAsk(p.get("n1"), rt.host("n3")), "ok n3");
      eventually("n3 still reaches n2", () -> nodeAsk(p.get("n3"), rt.host("n2")), "ok n2");
      eventually("the harness still reaches n1", () -> harnessAsk(rt, "n1"), "ok n1");
      eventually("the harness still reaches n2", () -> harnessAsk(rt, "n2"), "ok n2");

      rt.heal();

      eventually("n1 reaches n2 after heal", () -> nodeAsk(p.get("n1"), rt.host("n2")), "ok n2");
      // by name too: the namespace's own /etc/hosts lists every node
      eventually("n2 reaches n1 by name", () -> nodeAsk(p.get("n2"), "n1"), "ok n1");
    }
  }

  @Test
  void closeRemovesNamespacesLinksAndEtcDirs() throws Exception {
    NodeRuntime rt = Runtimes.netns(tmp);
    NodeProcess n1;
    try {
      rt.open(List.of("n1", "n2"));
      n1 = EchoNodes.start(rt, "n1", tmp);
      assertThat(sh("ip", "netns", "list")).contains(PREFIX + "hub", PREFIX + "n1", PREFIX + "n2");
      assertThat(etcNetnsOurs()).hasSize(3);
    } finally {
      rt.close();
    }
    assertThat(n1.isAlive()).isFalse();
    assertThat(sh("ip", "netns", "list")).doesNotContain(PREFIX);
    assertThat(sh("ip", "-o", "link", "show")).doesNotContain("pk" + ProcessHandle.current().pid());
    assertThat(etcNetnsOurs()).isEmpty();
    rt.close(); // idempotent
  }

  @Test
  void openRemovesOnlyStaleNamesOfDeadPids() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    long dead = gone.pid();
    Assumptions.assumeTrue(ProcessHandle.of(dead).isEmpty(), "pid " + dead + " was reused");
    String staleNs = "partkit-" + dead + "-n1";
    String staleLink = "pk" + dead + "r";
    Path staleDir = Path.of("/etc/netns", staleNs);
    String notOurs = "partkit-keepme-test";
    try {
      sh("ip", "netns", "add", staleNs);
      // as a crashed run leaves it: the root end of a veth into its (hub) namespace
      sh("ip", "link", "add", staleLink, "type", "veth", "peer", "name", "pk" + dead + "h", "netns",
          staleNs);
      Files.createDirectories(staleDir);
      sh("ip", "netns", "add", notOurs);
      try (NodeRuntime rt = Runtimes.netns(tmp)) {
        rt.open(List.of("n1"));
        String namespaces = sh("ip", "netns", "list");
        assertThat(namespaces).doesNotContain(staleNs).contains(notOurs, PREFIX + "n1");
        assertThat(sh("ip", "-o", "link", "show")).doesNotContain(staleLink + ":");
        assertThat(staleDir).doesNotExist();
      }
    } finally {
      quietly("ip", "netns", "del", notOurs);
      quietly("ip", "netns", "del", staleNs);
      quietly("ip", "link", "del", staleLink);
      Files.deleteIfExists(staleDir);
    }
  }

  @Test
  void aFailedOpenSaysWhatFailedAndRemovesWhatItHadCreated() {
    String taken = PREFIX + "n2"; // not created by the runtime: it must fail on it, not remove it
    sh("ip", "netns", "add", taken);
    try {
      NodeRuntime rt = Runtimes.netns(tmp);
      assertThatThrownBy(() -> rt.open(List.of("n1", "n2")))
          .isInstanceOf(SetupException.class)
          .hasMessageContaining("ip netns add " + taken);
      assertThat(sh("ip", "netns", "list")).contains(taken)
          .doesNotContain(PREFIX + "hub", PREFIX + "n1");
      assertThat(sh("ip", "-o", "link", "show"))
          .doesNotContain("pk" + ProcessHandle.current().pid());
      rt.close();
    } finally {
      quietly("ip", "netns", "del", taken);
    }
  }

  @Test
  void killEndsTheProcessAndPauseStopsItsAnswers() throws Exception {
    try (NodeRuntime rt = Runtimes.netns(tmp)) {
      rt.open(List.of("n1"));
      NodeProcess n1 = EchoNodes.start(rt, "n1", tmp);
      eventually("the harness reaches n1", () -> harnessAsk(rt, "n1"), "ok n1");

      n1.pause();
      // the kernel still completes the handshake into the backlog, but nobody answers
      assertThat(harnessAsk(rt, "n1")).startsWith("fail SocketTimeoutException: Read timed out");
      n1.resume();
      eventually("n1 answers after resume", () -> harnessAsk(rt, "n1"), "ok n1");

      n1.kill();
      assertThat(n1.isAlive()).isFalse();
      assertThat(harnessAsk(rt, "n1")).startsWith("fail ConnectException");
    }
  }

  private static List<Path> etcNetnsOurs() throws IOException {
    Path etc = Path.of("/etc/netns");
    if (!Files.isDirectory(etc)) {
      return List.of();
    }
    try (Stream<Path> all = Files.list(etc)) {
      return all.filter(d -> d.getFileName().toString().startsWith(PREFIX))
          .collect(Collectors.toList());
    }
  }

  private static String sh(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new AssertionError(String.join(" ", command) + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new AssertionError("cannot run " + String.join(" ", command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static void quietly(String... command) {
    try {
      sh(command);
    } catch (AssertionError e) {
      // already gone
    }
  }
}
