package io.partkit.harness.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.Outcome;
import io.partkit.harness.system.SystemContext;
import io.partkit.harness.system.SystemUnderTest;
import io.partkit.harness.system.Systems;
import io.partkit.verification.history.OpType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * A real etcd cluster as processes on loopback. Needs the etcd binary: without it the tests are
 * skipped, or fail when {@code CI=true}.
 */
class EtcdSystemTest {

  private static final Duration LONG = Duration.ofSeconds(60); // a busy, shared machine

  private static Operation read(long key) {
    return new Operation(Operation.READ, key, null);
  }

  private static Operation write(long key, long value) {
    return new Operation(Operation.WRITE, key, value);
  }

  private static Operation cas(long key, Long expected, long value) {
    return new Operation(Operation.CAS, key, java.util.Arrays.asList(expected, value));
  }

  private static Path dir(TestInfo info) {
    return Path.of("target", "etcd-system-test",
        info.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime()).toAbsolutePath();
  }

  /** Starts {@code nodes} members; skips (or fails on CI) when etcd is not installed. */
  private static void start(EtcdSystem system, NodeRuntime runtime, Path dir, int nodes) {
    try {
      system.start(new SystemContext(runtime, dir, nodes, 42L, noOptions(nodes)));
    } catch (SetupException e) {
      if (e.getMessage().startsWith("etcd not found")) {
        if ("true".equals(System.getenv("CI"))) {
          fail("etcd not found: apt-get install etcd-server (CI=true: a missing etcd fails)");
        }
        Assumptions.abort("etcd not found: apt-get install etcd-server");
      }
      throw e;
    }
  }

  /** Polls {@code condition} until it returns a value or the deadline passes. */
  private static <T> T await(String what, Supplier<Optional<T>> condition) {
    long deadline = System.nanoTime() + LONG.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<T> v = condition.get();
      if (v.isPresent()) {
        return v.get();
      }
      try {
        Thread.sleep(50); // the polling interval: a failing write may answer at once
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
    throw new AssertionError(what + " not within " + LONG);
  }

  /** Writes until etcd acknowledges; a write must never be recorded fail. */
  private static List<Outcome> writeUntilOk(Client client, long key, long value) {
    List<Outcome> outcomes = new ArrayList<>();
    await("an acknowledged write of " + value, () -> {
      Outcome o = client.invoke(write(key, value));
      outcomes.add(o);
      assertThat(o.type()).as("a write is never fail: %s", o).isNotEqualTo(OpType.FAIL);
      return o.type() == OpType.OK ? Optional.of(o) : Optional.empty();
    });
    return outcomes;
  }

  @Test
  void threeMembersServeReadsWritesAndCas(TestInfo info) throws Exception {
    Path dir = dir(info);
    NodeRuntime runtime = Runtimes.processes();
    EtcdSystem system = new EtcdSystem();
    try {
      start(system, runtime, dir, 3);
      assertThat(system.name()).isEqualTo("etcd");
      assertThat(system.nodes()).containsExactly("e1", "e2", "e3");
      assertThat(dir.resolve("data").resolve("e1")).isDirectory();
      assertThat(dir.resolve("e1.log")).isNotEmptyFile();
      try (Client client = system.openClient()) {
        assertThat(client.invoke(read(1))).isEqualTo(Outcome.ok(null));
        assertThat(client.invoke(write(1, 10))).isEqualTo(Outcome.ok(10L));
        assertThat(client.invoke(read(1))).isEqualTo(Outcome.ok(10L));

        assertThat(client.invoke(cas(1, 10L, 20))).isEqualTo(Outcome.ok(List.of(10L, 20L)));
        assertThat(client.invoke(read(1))).isEqualTo(Outcome.ok(20L));
        Outcome wrong = client.invoke(cas(1, 10L, 30));
        assertThat(wrong.type()).isEqualTo(OpType.FAIL);
        assertThat(wrong.error()).contains("compare failed");
        assertThat(client.invoke(read(1))).isEqualTo(Outcome.ok(20L));

        // expected null: the register is absent
        assertThat(client.invoke(cas(2, null, 5)).type()).isEqualTo(OpType.OK);
        assertThat(client.invoke(read(2))).isEqualTo(Outcome.ok(5L));
        assertThat(client.invoke(cas(2, null, 6)).type()).isEqualTo(OpType.FAIL);
        assertThat(client.invoke(cas(1, null, 6)).type()).isEqualTo(OpType.FAIL);
        assertThat(client.invoke(read(2))).isEqualTo(Outcome.ok(5L));
      }
    } finally {
      system.close();
      runtime.close();
    }
  }

  @Test
  void killedLeaderIsReplacedAndRejoinsAfterRestart(TestInfo info) throws Exception {
    NodeRuntime runtime = Runtimes.processes();
    EtcdSystem system = new EtcdSystem();
    try {
      start(system, runtime, dir(info), 3);
      String leader = await("a leader", system::leader);
      assertThat(system.nodes()).contains(leader);

      try (Client client = system.openClient()) {
        assertThat(client.invoke(write(7, 1))).isEqualTo(Outcome.ok(1L));
        system.kill(leader);
        // the two survivors elect a new leader and accept writes again
        writeUntilOk(client, 7, 2);
        String next = await("a new leader", system::leader);
        assertThat(next).isNotEqualTo(leader);

        // same command, same data dir: etcd rejoins as the member it was
        system.restart(leader);
        system.awaitRecovered(LONG);
        assertThat(await("a leader after the restart", system::leader)).isIn(system.nodes());
        assertThat(client.invoke(read(7))).isEqualTo(Outcome.ok(2L));
      }
    } finally {
      system.close();
      runtime.close();
    }
  }

  @Test
  void writeWithoutMajorityIsInfoThenServesAfterResume(TestInfo info) throws Exception {
    NodeRuntime runtime = Runtimes.processes();
    EtcdSystem system = new EtcdSystem();
    try {
      start(system, runtime, dir(info), 3);
      try (Client client = system.openClient(Duration.ofSeconds(1))) {
        // first an acknowledged write: the client is connected to every member before the pause
        writeUntilOk(client, 3, 1);
        List<String> paused = system.nodes().subList(0, 2);
        paused.forEach(system::pause);
        Outcome unknown;
        try {
          unknown = client.invoke(write(3, 2));
        } finally {
          paused.forEach(system::resume);
        }
        assertThat(unknown.type()).as("%s", unknown).isEqualTo(OpType.INFO);
        assertThat(unknown.value()).isEqualTo(2L);
        assertThat(unknown.error()).isNotBlank();

        writeUntilOk(client, 3, 4);
        system.awaitRecovered(LONG);
        // The unknown write may still take effect after the later one: etcd received it, and a
        // proposal forwarded to a paused leader can be ordered after a write sent once it resumed.
        // Linearizability allows both values (Jepsen's :info semantics); it forbids 1 or an error.
        assertThat(client.invoke(read(3))).isIn(Outcome.ok(4L), Outcome.ok(2L));
      }
    } finally {
      system.close();
      runtime.close();
    }
  }

  @Test
  void aMemberThatExitsAtStartFailsTheSetupWithItsLog(TestInfo info) throws Exception {
    Path dir = dir(info);
    // a file where e2's data directory should be: etcd refuses it and exits
    Files.createDirectories(dir.resolve("data"));
    Files.writeString(dir.resolve("data").resolve("e2"), "not a directory");
    NodeRuntime runtime = Runtimes.processes();
    EtcdSystem system = new EtcdSystem();
    try {
      assertThatThrownBy(() -> start(system, runtime, dir, 3))
          .isInstanceOf(SetupException.class)
          .hasMessageContaining("etcd e2 exited")
          .hasMessageContaining(dir.resolve("e2.log").toString())
          .hasMessageContaining("etcdmain"); // a line of etcd's own log, the tail
      // a failed start leaves nothing running
      assertThat(system.leader()).isEmpty();
    } finally {
      system.close();
      runtime.close();
    }
  }

  @Test
  void unknownNameAndEvenMemberCountsAreRefused(TestInfo info) {
    assertThat(Systems.load().names()).contains("etcd");
    assertThat(Systems.named("etcd").name()).isEqualTo("etcd");
    assertThatThrownBy(() -> Systems.named("zookeeper"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("zookeeper").hasMessageContaining("etcd");

    NodeRuntime runtime = Runtimes.processes();
    SystemUnderTest system = Systems.named("etcd");
    try {
      assertThatThrownBy(() -> system.start(new SystemContext(runtime, dir(info), 2, 1L,
          noOptions(2)))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2");
      assertThat(system.nodes()).isEmpty();
    } finally {
      system.close();
      runtime.close();
    }
  }

  private static OptionValues noOptions(int nodes) {
    return Systems.load().provider("etcd").options().check(Map.of(), nodes);
  }
}
