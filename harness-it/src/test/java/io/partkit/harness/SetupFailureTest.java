package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.runtime.NodeProcess;
import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.SystemContext;
import io.partkit.harness.system.SystemUnderTest;
import io.partkit.harness.system.Systems;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Faults of the harness itself: a clear error naming what failed, and nothing left running. */
class SetupFailureTest {

  /** The loopback runtime, but one node's port is one another program already listens on. */
  private static final class TakenPortRuntime implements NodeRuntime {
    private final NodeRuntime loopback = Runtimes.processes();
    private final int taken;
    final List<NodeProcess> started = new ArrayList<>();

    TakenPortRuntime(int taken) {
      this.taken = taken;
    }

    @Override
    public String name() {
      return loopback.name();
    }

    @Override
    public void open(List<String> nodes) {
      loopback.open(nodes);
    }

    @Override
    public String host(String node) {
      return loopback.host(node);
    }

    @Override
    public int port(String node, String service, int defaultPort) {
      return node.equals("n2") ? taken : loopback.port(node, service, defaultPort);
    }

    @Override
    public NodeProcess start(String node, List<String> command, Path log) throws IOException {
      NodeProcess p = loopback.start(node, command, log);
      started.add(p);
      return p;
    }

    @Override
    public void close() {
      loopback.close();
    }
  }

  @Test
  void aPortInUseFailsTheStartNamingTheAddressAndTheNodesAreStopped(@TempDir Path dir)
      throws Exception {
    try (ServerSocket squatter = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      TakenPortRuntime runtime = new TakenPortRuntime(squatter.getLocalPort());
      SystemUnderTest kv = Systems.named("kv");
      try (runtime; kv) {
        assertThatThrownBy(() -> kv.start(new SystemContext(runtime, dir, 3, 1,
            Systems.load().provider("kv").options().check(Map.of(), 3))))
            .isInstanceOf(SetupException.class)
            .hasMessageContaining("n2")
            .hasMessageContaining("cannot listen on")
            .hasMessageContaining(Integer.toString(squatter.getLocalPort()));
      }
      for (NodeProcess p : runtime.started) {
        assertThat(p.isAlive()).as("%s stopped", p.node()).isFalse();
      }
      assertThat(Files.readString(dir.resolve("n2.log"))).contains("Address already in use");
    }
  }

  @Test
  void aSystemWithTooFewMembersIsRefusedBeforeAnythingStarts() {
    assertThatThrownBy(() -> VerifyRun.run(VerifySpec.builder("etcd").nodes(2)
        .store(KvVerifyTest.STORE).build(), System.out))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2");
  }
}
