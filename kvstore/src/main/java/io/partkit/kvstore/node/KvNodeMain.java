package io.partkit.kvstore.node;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one node as its own process:
 * {@code java -cp <classpath> io.partkit.kvstore.node.KvNodeMain --id n1 --data /var/kv/n1
 * [--port 0] [--host 127.0.0.1] [--replica-timeout-ms 5000] [--suspect-after-ms 1000]}.
 *
 * <p>{@code --replica-timeout-ms} is how long, as a primary, it waits for a backup's answer
 * before failing the request (default {@link KvNode#REPLICA_TIMEOUT}). {@code
 * --suspect-after-ms}, shorter, is how long it waits before it reports the backup to the
 * coordinator as a suspect, waiting on (default {@link KvNode#SUSPECT_AFTER}, or half the
 * replica timeout when that is shorter); a configuration the coordinator commits without the
 * backup ends the wait.
 *
 * <p>{@code --ignore-log-reach} starts it from its write-ahead log as it is, unchecked against
 * the log's reach ({@code wal.reach}), which it otherwise refuses to start without, or with a
 * log shorter than the reach, when a partition has no other copy: acknowledged writes missing
 * from the log are then lost for good. Only for an operator who accepts that loss.
 *
 * <p>{@code --unsafe-test-fault NAME} starts it with a deliberate data-losing bug
 * ({@code ack-before-log}, {@code serve-while-fenced}, {@code skip-epoch-check},
 * {@code skip-replication}) for harness runs
 * that must prove they catch a broken store. Never use it for data you keep.
 *
 * <p>Once it listens it prints {@code KVNODE LISTENING host:port} on standard output, which is
 * what a harness waits for. On standard error it prints one dated line per event that matters
 * for diagnosing a stall ({@code io.partkit.kvstore.EventLine}: a partition's configuration
 * adopted, a backup named a suspect or cleared, a shrink offered, adopted or refused, a move
 * that timed out), never one per request. It exits when its standard input closes (so a dying
 * parent does not leave nodes behind) or when killed; a kill loses nothing acknowledged (see
 * {@link KvNode}). It exits with status 74 when its write-ahead log fails (a full disk: the
 * cause is on standard error), with status 70 on an {@link Error} in any of its threads (3 when
 * the JVM runs with {@code -XX:+ExitOnOutOfMemoryError}, as it should, and runs out of memory),
 * and at start-up, with a one-line message, when it cannot start (1 for a damaged or shortened
 * log, 74 for an I/O failure such as a full disk).
 */
public final class KvNodeMain {

  /** The exit status after an I/O failure (sysexits' EX_IOERR): a full disk, a failed log. */
  static final int EXIT_IO = 74;
  /**
   * The exit status after an {@link Error} (sysexits' EX_SOFTWARE): out of memory, a stack
   * overflow. Run with {@code -XX:+ExitOnOutOfMemoryError}, the JVM itself ends the process with
   * status 3 when it runs out of memory, before any code here.
   */
  static final int EXIT_ERROR = 70;

  private KvNodeMain() {}

  /**
   * Entry point.
   *
   * @throws IOException if the node cannot start
   */
  public static void main(String[] args) throws IOException {
    // Fail-stop: an Error on any thread ends the process, which a supervisor restarts and which
    // replays its log; kept alive, a node that lost a thread mid-change, or its heap, hung or
    // answered from half-made state while it still accepted connections.
    Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
      if (e instanceof Error) {
        haltOnError(thread.getName(), (Error) e);
      } else {
        e.printStackTrace();
      }
    });
    List<String> words = new ArrayList<>(List.of(args));
    boolean ignoreLogReach = words.remove(TcpKvNode.IGNORE_LOG_REACH); // the one bare flag
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < words.size(); i += 2) {
      options.put(words.get(i), words.get(i + 1));
    }
    String id = options.get("--id");
    String data = options.get("--data");
    if (id == null || data == null || words.size() % 2 != 0) {
      System.err.println("usage: KvNodeMain --id <node id> --data <dir> [--port <port>]"
          + " [--host <address>] [--secret-file <file>] [--unsafe-test-fault <name>]"
          + " [--replica-timeout-ms <ms>] [--suspect-after-ms <ms>] ["
          + TcpKvNode.IGNORE_LOG_REACH + "]");
      System.exit(2);
    }
    TcpKvNode node;
    try {
      String timeout = options.get("--replica-timeout-ms");
      Duration replicaTimeout = timeout == null ? KvNode.REPLICA_TIMEOUT
          : millis("--replica-timeout-ms", timeout);
      String secretFile = options.get("--secret-file");
      node = TcpKvNode.start(NodeId.of(id), Path.of(data),
          new InetSocketAddress(options.getOrDefault("--host", "127.0.0.1"),
              Integer.parseInt(options.getOrDefault("--port", "0"))),
          UnsafeTestFault.parse(options.getOrDefault("--unsafe-test-fault", "none")),
          ConnectionLimits.DEFAULT,
          secretFile == null ? null : SharedSecret.read(Path.of(secretFile)),
          new SimpleMeterRegistry(), replicaTimeout,
          options.containsKey("--suspect-after-ms")
              ? millis("--suspect-after-ms", options.get("--suspect-after-ms"))
              : KvNode.defaultSuspectAfter(replicaTimeout), System.err::println,
          ignoreLogReach);
    } catch (CorruptLogException | LostLogRecordsException | IllegalArgumentException e) {
      System.err.println("node " + id + ": " + e.getMessage()); // the whole story; no trace
      System.exit(1);
      return;
    } catch (IOException e) {
      // a full disk, a data directory it may not write: one line naming the cause, no trace
      String message = e.getMessage();
      System.err.println(message.startsWith("node ") ? message : "node " + id + ": " + message);
      System.exit(EXIT_IO);
      return;
    }
    Thread watcher = new Thread(() -> {
      try {
        node.awaitStopAfterLogFailure(Duration.ofDays(365 * 100));
        if (node.stoppedBy() != null) {
          // the node said why on stderr; no shutdown hooks, no close: the heap may be gone
          Runtime.getRuntime().halt(EXIT_ERROR);
        }
        System.exit(EXIT_IO); // the node said why on stderr; a supervisor restarts it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "kvnode-exit-on-failure");
    watcher.setDaemon(true);
    watcher.start();
    System.out.println("KVNODE LISTENING " + node.hostAndPort());
    System.out.flush();
    InputStream in = System.in;
    while (in.read() >= 0) {
      // wait for the parent to go away
    }
    node.close();
  }

  private static void haltOnError(String thread, Error e) {
    try {
      System.err.println("node: stopping on " + e + " in thread " + thread + " (exit status "
          + EXIT_ERROR + "; start it again: it replays its log)");
    } finally {
      Runtime.getRuntime().halt(EXIT_ERROR);
    }
  }

  /** The value of a flag that is a positive number of milliseconds. */
  private static Duration millis(String flag, String millis) {
    try {
      long ms = Long.parseLong(millis.trim());
      if (ms > 0) {
        return Duration.ofMillis(ms);
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new IllegalArgumentException(flag + " must be a positive number of"
        + " milliseconds, not '" + millis + "'");
  }
}
