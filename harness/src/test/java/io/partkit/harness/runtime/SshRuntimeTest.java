package io.partkit.harness.runtime;

import static io.partkit.harness.runtime.EchoNodes.eventually;
import static io.partkit.harness.runtime.EchoNodes.harnessAsk;
import static io.partkit.harness.runtime.EchoNodes.nodeAsk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SSH runtime against three hosts made for the test ({@link SshHosts}: namespaces with their
 * own sshd), the third with no java on its PATH: one-way cuts on the hosts, signals, standard
 * input, and every set-up error naming the host and the cause with nothing left behind.
 */
class SshRuntimeTest {

  private static SshHosts hosts;
  private static Path tmp;

  @BeforeAll
  static void startHosts() throws Exception {
    tmp = Path.of("/tmp", "partkit-ssh-runtime-" + ProcessHandle.current().pid());
    hosts = SshHosts.start(tmp, 3, "/nowhere");
  }

  @AfterAll
  static void stopHosts() {
    if (hosts != null) {
      hosts.close();
    }
  }

  private static SshTarget on(int... indexes) {
    List<String> chosen = Arrays.stream(indexes).mapToObj(hosts.addresses()::get)
        .toList();
    SshTarget all = hosts.target();
    return new SshTarget(chosen, all.user(), all.key(), all.port(), all.knownHosts(), false,
        all.dir());
  }

  @Test
  void oneWayCutsSignalsAndInputWorkOnTheHostsAndCloseLeavesNothing() throws Exception {
    NodeProcess n1;
    try (SshRuntime rt = new SshRuntime(on(0, 1), tmp.resolve("one-way"))) {
      rt.open(List.of("n1", "n2"));
      assertThat(rt.host("n1")).isEqualTo(hosts.addresses().get(0));
      assertThat(rt.port("n1", "echo", EchoNodes.PORT)).isEqualTo(EchoNodes.PORT);
      Map<String, NodeProcess> p = new LinkedHashMap<>();
      for (String n : List.of("n1", "n2")) {
        p.put(n, EchoNodes.start(rt, n, tmp.resolve("one-way")));
        eventually("the harness reaches " + n, () -> harnessAsk(rt, n), "ok " + n);
      }
      n1 = p.get("n1");
      eventually("n1 reaches n2", () -> nodeAsk(p.get("n1"), rt.host("n2")), "ok n2");

      rt.partition(Map.of("n2", Set.of("n1"))); // n2 drops what n1 sends; n1 keeps no grudge

      assertThat(nodeAsk(p.get("n1"), rt.host("n2"))).startsWith("fail SocketTimeoutException");
      eventually("the harness still reaches n2", () -> harnessAsk(rt, "n2"), "ok n2");
      rt.heal();
      eventually("n1 reaches n2 after heal", () -> nodeAsk(p.get("n1"), rt.host("n2")), "ok n2");

      n1.pause();
      assertThat(harnessAsk(rt, "n1")).startsWith("fail SocketTimeoutException");
      assertThat(n1.isAlive()).isTrue();
      n1.resume();
      eventually("n1 answers after resume", () -> harnessAsk(rt, "n1"), "ok n1");
      n1.kill();
      assertThat(n1.isAlive()).isFalse();
      assertThat(harnessAsk(rt, "n1")).startsWith("fail ConnectException");
      NodeProcess again = EchoNodes.start(rt, "n1", tmp.resolve("one-way"));
      eventually("n1 answers after a restart", () -> harnessAsk(rt, "n1"), "ok n1");
      assertThat(again.pid()).isNotEqualTo(n1.pid());
    }
    assertNoRunDirectories();
    assertThat(Files.readString(tmp.resolve("one-way").resolve("n1.log"))).contains("LISTENING");
  }

  @Test
  void aNodesFilesLiveOnItsHostAndAreFetchedAndWipedThere() throws Exception {
    Path run = tmp.resolve("files");
    Path data = run.resolve("data").resolve("w1");
    try (NodeRuntime rt = new SshRuntime(on(1), run)) {
      rt.open(List.of("w1"));
      // the node writes under its data directory, named by a local path of the run directory
      NodeProcess w = rt.start("w1", List.of("sh", "-c",
          "mkdir -p \"$0\" && echo written-on-the-host > \"$0/f\" && echo WROTE && sleep 600",
          data.toString()), run.resolve("w1.log"));
      w.awaitLine("WROTE", EchoNodes.START);
      assertThat(data.resolve("f")).as("nothing is written locally").doesNotExist();
      Path copy = rt.fetch("w1", data.resolve("f"));
      assertThat(Files.readString(copy)).isEqualTo("written-on-the-host\n");
      rt.wipe("w1", data);
      assertThat(rt.fetch("w1", data.resolve("f"))).doesNotExist();
    }
    assertNoRunDirectories();
  }

  @Test
  void aWrongKeyIsASetupErrorNamingTheHostWithNothingLeft() throws Exception {
    Path other = tmp.resolve("other_key");
    Files.deleteIfExists(other);
    Files.deleteIfExists(tmp.resolve("other_key.pub"));
    SshHosts.run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other.toString());
    SshTarget t = on(0, 1).withKey(other);
    try (NodeRuntime rt = new SshRuntime(t, tmp.resolve("wrong-key"))) {
      assertThatThrownBy(() -> rt.open(List.of("n1", "n2"))).isInstanceOf(SetupException.class)
          .hasMessageContaining("cannot log in to host " + hosts.addresses().get(0))
          .hasMessageContaining("Permission denied")
          .hasMessageContaining("is not accepted for root");
    }
    assertNoRunDirectories();
  }

  @Test
  void anUnknownHostKeyIsRefusedUnlessFirstContactIsAllowed() throws Exception {
    Path empty = tmp.resolve("known_hosts_empty");
    Files.writeString(empty, "");
    SshTarget t = on(0).withKnownHosts(empty);
    try (NodeRuntime rt = new SshRuntime(t, tmp.resolve("unknown-key"))) {
      assertThatThrownBy(() -> rt.open(List.of("n1"))).isInstanceOf(SetupException.class)
          .hasMessageContaining("Host key verification failed")
          .hasMessageContaining("--ssh-accept-new-host-keys");
    }
    try (NodeRuntime rt = new SshRuntime(t.withAcceptNewHostKeys(true),
        tmp.resolve("first-contact"))) {
      rt.open(List.of("n1"));
    }
    assertThat(Files.readString(empty)).contains(hosts.addresses().get(0) + " ssh-ed25519 ");
    // a changed key is refused even then: the file now holds h1's key under h2's address
    Files.writeString(empty, Files.readString(empty).replace(hosts.addresses().get(0),
        hosts.addresses().get(1)));
    try (NodeRuntime rt = new SshRuntime(on(1).withKnownHosts(empty).withAcceptNewHostKeys(true),
        tmp.resolve("changed-key"))) {
      assertThatThrownBy(() -> rt.open(List.of("n1"))).isInstanceOf(SetupException.class)
          .hasMessageContaining("IDENTIFICATION HAS CHANGED");
    }
    assertNoRunDirectories();
  }

  @Test
  void anUnreachableHostOrOneWithoutJavaIsASetupErrorAndTheOthersAreCleanedUp() throws Exception {
    String h1 = hosts.addresses().get(0);
    String nobody = h1.substring(0, h1.lastIndexOf('.')) + ".200"; // in the test's subnet
    SshTarget t = new SshTarget(List.of(h1, nobody, hosts.addresses().get(2)), "root",
        hosts.target().key(), 22, hosts.target().knownHosts(), false, hosts.target().dir());
    try (NodeRuntime rt = new SshRuntime(t, tmp.resolve("unreachable"))) {
      assertThatThrownBy(() -> rt.open(List.of("n1", "n2", "n3")))
          .isInstanceOf(SetupException.class)
          .hasMessageContaining("cannot log in to host " + nobody)
          .hasMessageContaining("host " + hosts.addresses().get(2) + ": no java on the PATH");
    }
    assertNoRunDirectories();
  }

  @Test
  void aPortInUseOnTheHostIsASetupErrorNamingIt() throws Exception {
    try (NodeRuntime first = new SshRuntime(on(0), tmp.resolve("port-1"));
        NodeRuntime second = new SshRuntime(on(0), tmp.resolve("port-2"))) {
      first.open(List.of("a"));
      EchoNodes.start(first, "a", tmp.resolve("port-1"));
      second.open(List.of("b"));
      assertThat(second.port("b", "echo", EchoNodes.PORT)).isEqualTo(EchoNodes.PORT);
      assertThatThrownBy(() -> EchoNodes.start(second, "b", tmp.resolve("port-2")))
          .isInstanceOf(SetupException.class)
          .hasMessageContaining("port in use on host " + hosts.addresses().get(0))
          .hasMessageContaining("echo=" + EchoNodes.PORT);
    }
    assertNoRunDirectories();
  }

  @Test
  void openRemovesWhatADeadRunLeftOnTheHostsButNotALiveRun() throws Exception {
    SshRuntime dead = new SshRuntime(on(0, 1), tmp.resolve("dead"));
    SshRuntime live = new SshRuntime(on(0), tmp.resolve("live"));
    try {
      dead.open(List.of("x", "y"));
      NodeProcess sleeper = dead.start("x", List.of("sleep", "600"), tmp.resolve("dead/x.log"));
      dead.partition(Map.of("x", Set.of("y")));
      live.open(List.of("z"));
      NodeProcess awake = live.start("z", List.of("sleep", "600"), tmp.resolve("live/z.log"));
      // the dead run's owner becomes a process that has exited, as after a kill -9
      Process gone = new ProcessBuilder("true").start();
      gone.waitFor();
      Path runs = Path.of(hosts.target().dir());
      for (String h : List.of("-h0", "-h1")) {
        Path owner = runs.resolve(dead.runName() + h).resolve("owner");
        Files.writeString(owner, Files.readString(owner)
            .replace("pid=" + ProcessHandle.current().pid() + " ", "pid=" + gone.pid() + " "));
      }
      assertThat(sleeper.isAlive()).isTrue();

      try (NodeRuntime next = new SshRuntime(on(0, 1), tmp.resolve("next"))) {
        next.open(List.of("n1", "n2"));
        assertThat(sleeper.isAlive()).as("the dead run's process").isFalse();
        assertThat(runs.resolve(dead.runName() + "-h0")).doesNotExist();
        assertThat(runs.resolve(dead.runName() + "-h1")).doesNotExist();
        assertThat(ssh(0, "nft list tables")).doesNotContain(dead.table());
        assertThat(awake.isAlive()).as("the live run's process").isTrue();
        assertThat(runs.resolve(live.runName() + "-h0")).exists();
      }
    } finally {
      live.close();
      dead.close();
    }
    assertNoRunDirectories();
  }

  @Test
  void aControlNodeKilledWithKill9LeavesWhatTheNextRunRemoves() throws Exception {
    Path dir = tmp.resolve("killed");
    Files.createDirectories(dir);
    String jvm = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    SshTarget t = on(0, 1);
    Process child = new ProcessBuilder(jvm, "-Xmx128m", "-cp", cp, SshChildMain.class.getName(),
        String.join(",", t.hosts()), t.user(), t.key().toString(), t.knownHosts().toString(),
        t.dir(), dir.toString()).redirectErrorStream(true).start();
    String ready;
    try (var out = new BufferedReader(new InputStreamReader(
        child.getInputStream(), StandardCharsets.UTF_8))) {
      CompletableFuture<String> line =
          CompletableFuture.supplyAsync(() -> {
            try {
              for (String l; (l = out.readLine()) != null; ) {
                if (l.startsWith("READY ")) {
                  return l;
                }
              }
              return "ended";
            } catch (IOException e) {
              return "ended: " + e;
            }
          });
      ready = line.get(120, TimeUnit.SECONDS);
      assertThat(ready).startsWith("READY ");
      child.destroyForcibly(); // SIGKILL: no shutdown hook runs
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      child.destroyForcibly();
    }
    String[] words = ready.split(" ");
    String run = words[1];
    String table = words[2];
    long sleeper = Long.parseLong(words[3]);
    Path runs = Path.of(hosts.target().dir());
    assertThat(runs.resolve(run + "-h0")).as("left behind by kill -9").exists();
    assertThat(ProcessHandle.of(sleeper).map(ProcessHandle::isAlive)).contains(true);
    assertThat(ssh(0, "nft list tables")).contains(table);

    try (NodeRuntime next = new SshRuntime(on(0, 1), tmp.resolve("after-kill"))) {
      next.open(List.of("n1", "n2"));
      assertThat(runs.resolve(run + "-h0")).doesNotExist();
      assertThat(runs.resolve(run + "-h1")).doesNotExist();
      assertThat(ssh(0, "nft list tables")).doesNotContain(table);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (ProcessHandle.of(sleeper).map(ProcessHandle::isAlive).orElse(false)
          && !zombie(sleeper) && System.nanoTime() < deadline) {
        Thread.sleep(100); // killed by the sweep; the kernel may take a moment to reap it
      }
      assertThat(ProcessHandle.of(sleeper).map(ProcessHandle::isAlive).orElse(false)
          && !zombie(sleeper)).as("the dead run's node").isFalse();
    }
    assertNoRunDirectories();
  }

  /** This machine's init may not reap a zombie: one counts as gone. */
  private static boolean zombie(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (IOException e) {
      return true;
    }
  }

  /** A command on host {@code index}, over SSH as the runtime would run it. */
  private static String ssh(int index, String command) throws Exception {
    SshHost h = new SshHost("h", hosts.addresses().get(index), 99, hosts.target(),
        Files.createTempDirectory(Path.of("/tmp"), "pksshtest"));
    try {
      return h.run("PATH=$PATH:/usr/sbin; " + command, Duration.ofSeconds(60));
    } finally {
      h.closeConnection();
    }
  }

  private static String read(Path p) {
    try {
      return Files.exists(p) ? Files.readString(p) : "";
    } catch (IOException e) {
      return "";
    }
  }

  /** The hosts share this machine's disk, so the test (never the runtime) can look. */
  private static void assertNoRunDirectories() throws Exception {
    Path runs = Path.of(hosts.target().dir());
    if (!Files.exists(runs)) {
      return;
    }
    try (Stream<Path> left = Files.list(runs)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .as("run directories left on the hosts").allMatch(n -> n.equals("cache"));
    }
  }
}
