package io.partkit.harness.runtime;

import static io.partkit.harness.runtime.EchoNodes.eventually;
import static io.partkit.harness.runtime.EchoNodes.harnessAsk;
import static io.partkit.harness.runtime.EchoNodes.nodeAsk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Network;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The containers runtime on a real Docker engine with partkit's node image: addresses of their
 * own on a network of the run's own, partitions as nft rules inside the containers (one-way too,
 * kept across a restart), standard input, kill and pause, and clean-up by labels.
 */
class ContainerRuntimeContainerTest {

  @TempDir Path tmp;

  @BeforeAll
  static void needsEngineAndImage() {
    ContainerPrerequisite.require();
  }

  @Test
  void partitionsDropNodeToNodePacketsOneWayTooButNeverTheHarness() throws Exception {
    try (ContainerRuntime rt = new ContainerRuntime(tmp, ContainerRuntime.DEFAULT_IMAGE)) {
      rt.open(List.of("n1", "n2", "n3"));
      Map<String, NodeProcess> p = new LinkedHashMap<>();
      for (String n : List.of("n1", "n2", "n3")) {
        p.put(n, EchoNodes.start(rt, n, tmp));
        assertThat(rt.host(n)).matches("10\\.78\\.\\d+\\.\\d+");
        assertThat(rt.port(n, "echo", EchoNodes.PORT)).isEqualTo(EchoNodes.PORT);
        eventually("the harness reaches " + n, () -> harnessAsk(rt, n), "ok " + n);
      }
      assertThat(rt).isInstanceOf(RuntimeCapability.Partitions.class);
      eventually("n1 reaches n2", () -> nodeAsk(p.get("n1"), rt.host("n2")), "ok n2");

      // one way: n2 drops what n1 sends; n1 still takes n2's packets but its answers are dropped
      rt.partition(Map.of("n2", Set.of("n1")));
      assertThat(nodeAsk(p.get("n1"), rt.host("n2"))).startsWith("fail SocketTimeoutException");
      assertThat(nodeAsk(p.get("n2"), rt.host("n1"))).startsWith("fail SocketTimeoutException");
      eventually("n3 still reaches n1", () -> nodeAsk(p.get("n3"), rt.host("n1")), "ok n1");
      eventually("n1 still reaches n3", () -> nodeAsk(p.get("n1"), rt.host("n3")), "ok n3");
      eventually("the harness still reaches n2", () -> harnessAsk(rt, "n2"), "ok n2");

      // a node restarted during a cut is cut before its command runs
      rt.partition(Map.of("n1", Set.of("n3"), "n3", Set.of("n1")));
      p.get("n3").kill();
      assertThat(p.get("n3").isAlive()).isFalse();
      p.put("n3", EchoNodes.start(rt, "n3", tmp));
      assertThat(nodeAsk(p.get("n3"), rt.host("n1"))).startsWith("fail SocketTimeoutException");
      eventually("n2 reaches n1 again", () -> nodeAsk(p.get("n2"), rt.host("n1")), "ok n1");
      eventually("the harness reaches the new n3", () -> harnessAsk(rt, "n3"), "ok n3");

      rt.heal();
      eventually("n3 reaches n1 after heal", () -> nodeAsk(p.get("n3"), rt.host("n1")), "ok n1");
      // by name too: each container's hosts file lists every node
      eventually("n1 reaches n3 by name", () -> nodeAsk(p.get("n1"), "n3"), "ok n3");
    }
  }

  @Test
  void pauseFreezesANodeResumeOfARunningOneIsHarmlessAndKillIsReal() throws Exception {
    try (ContainerRuntime rt = new ContainerRuntime(tmp, ContainerRuntime.DEFAULT_IMAGE)) {
      rt.open(List.of("n1", "n2"));
      NodeProcess n1 = EchoNodes.start(rt, "n1", tmp);
      NodeProcess n2 = EchoNodes.start(rt, "n2", tmp);
      eventually("the harness reaches n1", () -> harnessAsk(rt, "n1"), "ok n1");
      assertThat(n1.pid()).as("the node's pid on the engine's host").isPositive();

      n1.resume(); // not paused: nothing to do, and no error (the engine would say 500)
      n1.pause();
      assertThat(harnessAsk(rt, "n1")).startsWith("fail SocketTimeoutException");
      // a cut made while n1 is frozen is in force when it thaws
      rt.partition(Map.of("n1", Set.of("n2")));
      n1.resume();
      eventually("n1 answers after resume", () -> harnessAsk(rt, "n1"), "ok n1");
      assertThat(nodeAsk(n2, rt.host("n1"))).startsWith("fail SocketTimeoutException");
      rt.heal();

      n1.pause();
      n1.kill(); // a frozen container dies too
      assertThat(n1.isAlive()).isFalse();
      // its address lives on in the network container: refused at once, as a crashed process's
      assertThat(harnessAsk(rt, "n1")).startsWith("fail ConnectException");
      assertThat(n2.isAlive()).isTrue();
    }
  }

  @Test
  void closeRemovesEveryContainerAndTheNetwork() throws Exception {
    DockerClient docker = DockerEngine.client();
    String run;
    try (NodeRuntime rt = Runtimes.load().create(RuntimeSpec.named("containers"), tmp)) {
      rt.open(List.of("n1"));
      EchoNodes.start(rt, "n1", tmp);
      run = runOf(docker, "n1");
      assertThat(docker.listNetworksCmd().withNameFilter(run).exec()).hasSize(1);
    }
    assertThat(containersOf(docker, run)).as("containers of " + run).isEmpty();
    assertThat(docker.listNetworksCmd().withNameFilter(run).exec().stream()
        .map(Network::getName)).as("networks").doesNotContain(run);
  }

  @Test
  void openRemovesWhatADeadRunLeftAndNothingElse() throws Exception {
    DockerClient docker = DockerEngine.client();
    // a dead run: same boot and pid namespace, a pid that is not alive
    long dead = deadPid();
    String owner = DockerEngine.OWNER.substring(0, DockerEngine.OWNER.lastIndexOf('/') + 1)
        + dead;
    String other = "another-machine/1/" + dead;
    String deadId = leftover(docker, "partkit-dead-" + dead, owner);
    String otherId = leftover(docker, "partkit-other-" + dead, other);
    try (NodeRuntime rt = Runtimes.load().create(RuntimeSpec.named("containers"), tmp)) {
      rt.open(List.of("n1"));
      List<String> left = docker.listContainersCmd().withShowAll(true).exec().stream()
          .map(Container::getId).toList();
      assertThat(left).as("the dead run's container is gone").doesNotContain(deadId);
      assertThat(left).as("another machine's container stays").contains(otherId);
    } finally {
      docker.removeContainerCmd(otherId).withForce(true).exec();
    }
  }

  @Test
  void aMissingImageIsASetupErrorNamingHowToGetIt() {
    try (NodeRuntime rt = Runtimes.load().create(RuntimeSpec.named("containers")
        .with(ContainersProvider.IMAGE, "partkit/no-such-image:0"), tmp)) {
      assertThatThrownBy(() -> rt.open(List.of("n1"))).isInstanceOf(SetupException.class)
          .hasMessageContaining("image partkit/no-such-image:0 is not in the Docker engine")
          .hasMessageContaining("docker pull partkit/no-such-image:0");
    }
    assertThat(DockerEngine.missingImage(ContainerRuntime.DEFAULT_IMAGE, "unix:///x.sock"))
        .contains("tools/build-node-image");
  }

  @Test
  void imageNamesSpellOutTheirRegistrySoTestcontainersAsksNoDefault() {
    assertThat(ContainerRuntime.qualified("partkit/node:bookworm-2"))
        .isEqualTo("docker.io/partkit/node:bookworm-2");
    assertThat(ContainerRuntime.qualified("debian:bookworm"))
        .isEqualTo("docker.io/library/debian:bookworm");
    assertThat(ContainerRuntime.qualified("ghcr.io/me/node:1")).isEqualTo("ghcr.io/me/node:1");
    assertThat(ContainerRuntime.qualified("localhost:5000/node")).isEqualTo("localhost:5000/node");
    assertThat(ContainerRuntime.qualified("localhost/node")).isEqualTo("localhost/node");
  }

  @Test
  void withoutAnEngineOpeningSaysHowToStartOne() {
    try (NodeRuntime rt = new ContainerRuntime(tmp, ContainerRuntime.DEFAULT_IMAGE,
        "unix://" + tmp.resolve("no-docker.sock"))) {
      assertThatThrownBy(() -> rt.open(List.of("n1"))).isInstanceOf(SetupException.class)
          .hasMessageStartingWith("no Docker engine answers at unix://")
          .hasMessageContaining("dockerd --iptables=false");
    }
  }

  @Test
  void anEngineThatStopsAnsweringIsLostControlAndTearDownDoesNotHideIt() throws Exception {
    DockerClient docker = DockerEngine.client();
    String run;
    try (EngineProxy proxy = EngineProxy.at(tmp.resolve("engine.sock"));
        ContainerRuntime rt = new ContainerRuntime(tmp, ContainerRuntime.DEFAULT_IMAGE,
            proxy.host())) {
      rt.open(List.of("n1"));
      NodeProcess n1 = EchoNodes.start(rt, "n1", tmp);
      run = runOf(docker, "n1");
      assertThat(rt.lostControl()).isEmpty();

      proxy.close();

      assertThatThrownBy(n1::pause).isInstanceOf(SetupException.class)
          .hasMessageContaining("stopped answering while pausing n1");
      assertThat(rt.lostControl()).hasValueSatisfying(why -> assertThat(why)
          .contains("the Docker engine at unix://", "stopped answering"));
      eventually("n1 still runs, out of the run's reach", () -> harnessAsk(rt, "n1"), "ok n1");
      rt.close(); // says what it left on standard error, does not throw over the lost engine
    }
    for (Container c : containersOf(docker, run)) {
      docker.removeContainerCmd(c.getId()).withForce(true).exec();
    }
    docker.removeNetworkCmd(run).exec();
  }

  private static String runOf(DockerClient docker, String node) {
    return docker.listContainersCmd().withShowAll(true)
        .withLabelFilter(Map.of(DockerEngine.OWNER_LABEL, DockerEngine.OWNER,
            "io.partkit.node", node)).exec().get(0).getLabels().get(DockerEngine.RUN_LABEL);
  }

  private static List<Container> containersOf(DockerClient docker, String run) {
    return docker.listContainersCmd().withShowAll(true)
        .withLabelFilter(Map.of(DockerEngine.RUN_LABEL, run)).exec();
  }

  /** A created (never started) container labelled as made by {@code owner}. */
  private static String leftover(DockerClient docker, String name, String owner) {
    return docker.createContainerCmd(ContainerRuntime.qualified(ContainerRuntime.DEFAULT_IMAGE))
        .withName(name)
        .withLabels(Map.of(DockerEngine.OWNER_LABEL, owner, DockerEngine.RUN_LABEL, name))
        .withHostConfig(HostConfig.newHostConfig().withNetworkMode("none"))
        .withCmd("true").exec().getId();
  }

  /** The pid of a process that ran and exited: no live process has it (until reused). */
  private static long deadPid() throws Exception {
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    return p.pid();
  }
}
