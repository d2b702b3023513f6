package io.partkit.harness.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.partkit.harness.RunResult;
import io.partkit.harness.VerifyRun;
import io.partkit.harness.VerifySpec;
import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.system.Capability;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.Outcome;
import io.partkit.harness.system.SystemContext;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.SystemUnderTest;
import io.partkit.harness.system.Systems;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.OpType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code partkit verify} counts on from a system, as tests a provider's own test class
 * inherits: extend it, return the provider from {@link #provider()}, and the system is started
 * on real node processes and held to the contract.
 *
 * <ul>
 *   <li>the provider is found through {@code META-INF/services}, describes itself, and its
 *       options check with their defaults;
 *   <li>the system starts, and a client's writes are read back;
 *   <li>with {@link Capability.Kill}: every node killed and restarted, one after another, keeps
 *       every acknowledged write (what the lost-write check of a run holds it to);
 *   <li>with {@link Capability.Pause}: a write whose answer cannot come (every node paused) is
 *       reported {@code info}, not {@code fail}, within {@link #clientTimeout()}: a client that
 *       says {@code fail} when it cannot know makes the checker wrong, not the system;
 *   <li>a short {@code verify} run (kills and pauses when it has them) is valid.
 * </ul>
 *
 * <p>A test that needs a capability the system lacks is skipped, saying which. Override the
 * protected methods to run with other options, nodes or times.
 */
public abstract class SystemProviderContract {

  /** Keys the kill test writes; several, so that every node holds some. */
  private static final int KEYS = 20;

  @TempDir protected Path dir;

  /** The provider under test. */
  protected abstract SystemProvider provider();

  /** The options the tests run with ({@code --option}); none by default. */
  protected Map<String, String> options() {
    return Map.of();
  }

  /** Data nodes; the provider's default. */
  protected int nodes() {
    return provider().defaultNodes();
  }

  /** How long the short verify run's clients run with faults. */
  protected Duration verifyTime() {
    return Duration.ofSeconds(8);
  }

  /** How long a client may take to answer one operation, even when it cannot know. */
  protected Duration clientTimeout() {
    return Duration.ofSeconds(30);
  }

  /** How long the system may take to serve again after a restart or a resume. */
  protected Duration recoveryTimeout() {
    return Duration.ofSeconds(60);
  }

  @Test
  void theProviderIsFoundByNameDescribesItselfAndItsDefaultsCheck() {
    SystemProvider p = provider();
    assertTrue(p.name().matches("[a-z][a-z0-9-]*"), "a lower-case name: '" + p.name() + "'");
    assertFalse(p.description().isBlank(), "a description");
    assertTrue(p.minNodes() >= 1 && p.defaultNodes() >= p.minNodes(),
        "default nodes " + p.defaultNodes() + " at least min nodes " + p.minNodes());
    SystemProvider found = Systems.load().provider(p.name());
    assertSame(p.getClass(), found.getClass(), "ServiceLoader finds " + p.getClass().getName()
        + " in META-INF/services/" + SystemProvider.class.getName());
    p.options().check(Map.of(), p.defaultNodes()); // the defaults alone are accepted
    p.options().check(options(), nodes());
  }

  @Test
  void itStartsAndReadsBackWhatWasWritten() {
    try (Started s = start()) {
      try (Client c = s.system().openClient()) {
        for (long key = 0; key < 3; key++) {
          assertOk(c, new Operation(Operation.WRITE, key, 10 + key));
          Outcome read = awaitOk(c, new Operation(Operation.READ, key, null));
          assertEquals(10 + key, ((Number) read.value()).longValue(), "key " + key);
        }
      }
    }
  }

  @Test
  void killAndRestartOfEveryNodeKeepAcknowledgedWrites() {
    try (Started s = start()) {
      assumeTrue(s.system() instanceof Capability.Kill,
          s.system().name() + " lacks the kill capability");
      Capability.Kill kill = (Capability.Kill) s.system();
      List<Long> written = new ArrayList<>();
      try (Client c = s.system().openClient()) {
        for (long key = 0; key < KEYS; key++) {
          assertOk(c, new Operation(Operation.WRITE, key, 100 + key));
          written.add(100 + key);
        }
      }
      for (String node : List.copyOf(s.system().nodes())) {
        kill.kill(node);
        kill.restart(node);
        s.system().awaitRecovered(recoveryTimeout());
      }
      try (Client c = s.system().openClient()) {
        for (long key = 0; key < KEYS; key++) {
          Outcome read = awaitOk(c, new Operation(Operation.READ, key, null));
          assertEquals(written.get((int) key), read.value() == null ? null
              : ((Number) read.value()).longValue(),
              "key " + key + ": an acknowledged write lost after every node was killed and"
                  + " restarted");
        }
      }
    }
  }

  @Test
  void aWriteWhoseAnswerCannotComeIsInfoNotFail() throws Exception {
    try (Started s = start()) {
      assumeTrue(s.system() instanceof Capability.Pause,
          s.system().name() + " lacks the pause capability");
      Capability.Pause pause = (Capability.Pause) s.system();
      ExecutorService one = Executors.newSingleThreadExecutor();
      try (Client c = s.system().openClient()) {
        assertOk(c, new Operation(Operation.WRITE, 1, 1L)); // connected, if it keeps connections
        List<String> nodes = List.copyOf(s.system().nodes());
        nodes.forEach(pause::pause);
        Outcome o;
        try {
          Future<Outcome> answer = one.submit(() -> c.invoke(
              new Operation(Operation.WRITE, 1, 2L)));
          o = answer.get(clientTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          throw new AssertionError("the client did not answer within " + clientTimeout()
              + " while every node was paused: it must give up and say info", e);
        } catch (ExecutionException e) {
          // the harness records a client that throws as info: allowed, though a plain
          // Outcome.info says why
          o = Outcome.info(2L, "threw " + e.getCause());
        } finally {
          nodes.forEach(pause::resume);
        }
        assertNotEquals(OpType.FAIL, o.type(), "a write sent to paused nodes may have been"
            + " applied: info, not fail (" + o + ")");
        assertNotEquals(OpType.OK, o.type(), "no node could have answered: " + o);
        s.system().awaitRecovered(recoveryTimeout());
      } finally {
        one.shutdownNow();
      }
    }
  }

  @Test
  void aShortVerifyRunIsValid() {
    SystemProvider p = provider();
    List<String> nemeses = new ArrayList<>();
    try (SystemUnderTest probe = p.create()) {
      if (probe instanceof Capability.Kill) {
        nemeses.add("kill");
      }
      if (probe instanceof Capability.Pause) {
        nemeses.add("pause");
      }
    }
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    RunResult r = VerifyRun.run(VerifySpec.builder(p.name()).nodes(nodes()).nemeses(nemeses)
        .time(verifyTime()).concurrency(4).rate(100).seed(1).store(dir.resolve("store"))
        .options(options()).build(), new PrintStream(progress, true, StandardCharsets.UTF_8));
    assertEquals(Verdict.VALID, r.verdict(), r.summary() + "\n"
        + progress.toString(StandardCharsets.UTF_8));
  }

  /** A started system and its runtime, closed together. */
  protected record Started(SystemUnderTest system, NodeRuntime runtime) implements AutoCloseable {
    @Override
    public void close() {
      try {
        system.close();
      } finally {
        runtime.close();
      }
    }
  }

  /** The system, started on node processes with {@link #options()} in {@code dir}. */
  protected Started start() {
    SystemProvider p = provider();
    OptionValues values = p.options().check(options(), nodes());
    NodeRuntime runtime = Runtimes.processes();
    SystemUnderTest system = p.create();
    try {
      system.start(new SystemContext(runtime, dir, nodes(), 1, values));
      system.awaitRecovered(recoveryTimeout());
      return new Started(system, runtime);
    } catch (RuntimeException | Error e) {
      try {
        system.close();
      } finally {
        runtime.close();
      }
      throw e;
    }
  }

  /** {@code op}, which must be ok at once. */
  private static Outcome assertOk(Client c, Operation op) {
    Outcome o = c.invoke(op);
    assertEquals(OpType.OK, o.type(), op + ": " + o);
    return o;
  }

  /** {@code op}, retried until ok within the recovery timeout (the system may be settling). */
  private Outcome awaitOk(Client c, Operation op) {
    long deadline = System.nanoTime() + recoveryTimeout().toNanos();
    Outcome o = c.invoke(op);
    while (o.type() != OpType.OK && System.nanoTime() < deadline) {
      try {
        Thread.sleep(200); // a system settling after a restart: poll, do not spin
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      o = c.invoke(op);
    }
    assertEquals(OpType.OK, o.type(), op + " never ok within " + recoveryTimeout() + ": " + o);
    return o;
  }
}
