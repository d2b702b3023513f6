package io.partkit.harness.exec;

import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.NodeProcessSystem;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.SystemContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Nodes {@code n1..nN}, each a process of the user's node command on the run's runtime, and one
 * process of the user's client command per worker ({@link ExecClient}). Kill, restart, pause and
 * resume are the runtime's, through {@link NodeProcessSystem}: a restart runs the same command
 * again, with the same port and data directory.
 *
 * <p>A node serves once it printed a line starting with the ready line. Every node is started
 * before any is waited for, since a node may need its peers to be up before it serves. Once all
 * serve, one client answers a read as a probe, so that a client that cannot start or prints
 * something other than the protocol is a set-up failure naming the command and the line, not a
 * run full of unknown operations.
 */
final class ExecSystem extends NodeProcessSystem {

  private final Map<String, List<String>> commands = new HashMap<>();
  private volatile CommandTemplate clientCommand;
  private volatile Map<String, String> shared = Map.of();
  private volatile String readyLine;
  private volatile Duration opTimeout;
  private volatile Duration startTimeout;
  private volatile List<String> addresses = List.of();
  private boolean warned;

  ExecSystem() {
    super("exec");
  }

  @Override
  public void start(SystemContext ctx) {
    OptionValues o = ctx.options();
    if (o.optional(ExecProvider.NODE_COMMAND).isEmpty()
        || o.optional(ExecProvider.CLIENT_COMMAND).isEmpty()) {
      throw new IllegalArgumentException("exec runs your binaries: give both --option "
          + ExecProvider.NODE_COMMAND + "=... and --option " + ExecProvider.CLIENT_COMMAND
          + "=... (docs/harness.md, \"Any language: the exec system\")");
    }
    CommandTemplate node = CommandTemplate.parse(o.text(ExecProvider.NODE_COMMAND),
        ExecProvider.NODE_PLACEHOLDERS);
    clientCommand = CommandTemplate.parse(o.text(ExecProvider.CLIENT_COMMAND),
        ExecProvider.CLIENT_PLACEHOLDERS);
    readyLine = o.text(ExecProvider.READY_LINE);
    opTimeout = Duration.ofMillis(o.longValue(ExecProvider.OP_TIMEOUT));
    startTimeout = Duration.ofMillis(o.longValue(ExecProvider.START_TIMEOUT));
    String files = copyFiles(ctx, o);
    if (files == null && (node.uses("files") || clientCommand.uses("files"))) {
      throw new IllegalArgumentException("a command names {files} but --option "
          + ExecProvider.FILES + "=DIR was not given");
    }

    List<String> names = openNodes(ctx, "n", List.of());
    Map<String, String> address = new LinkedHashMap<>();
    for (String n : names) {
      address.put(n, hostPort(runtime().host(n), port(n)));
    }
    addresses = List.copyOf(address.values());
    Map<String, String> common = new HashMap<>();
    common.put("nodes", String.join(",", addresses));
    if (files != null) {
      common.put("files", files);
    }
    shared = Map.copyOf(common);
    try {
      for (int i = 0; i < names.size(); i++) {
        String n = names.get(i);
        Path data = ctx.dir().resolve("data").resolve(n).toAbsolutePath();
        Files.createDirectories(data);
        Map<String, String> values = new HashMap<>(common);
        values.put("id", n);
        values.put("index", Integer.toString(i + 1));
        values.put("host", runtime().host(n));
        values.put("port", Integer.toString(port(n)));
        values.put("address", address.get(n));
        values.put("data", data.toString());
        List<String> peers = new ArrayList<>(address.values());
        peers.remove(address.get(n));
        values.put("peers", String.join(",", peers));
        commands.put(n, node.expand(values));
      }
      for (String n : names) {
        launch(n);
      }
      for (String n : names) {
        awaitReady(n);
      }
      probe();
    } catch (IOException e) {
      close();
      throw new SetupException("exec: cannot prepare the nodes' data directories under "
          + ctx.dir() + ": " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      close(); // a failed start leaves nothing running
      throw e;
    }
  }

  private int port(String node) {
    return runtime().port(node, "exec", 7000);
  }

  private static String hostPort(String host, int port) {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  /** Copies the {@code files} option's directory into the run directory; its path, or null. */
  private static String copyFiles(SystemContext ctx, OptionValues o) {
    if (o.optional(ExecProvider.FILES).isEmpty()) {
      return null;
    }
    Path from = Path.of(o.text(ExecProvider.FILES)).toAbsolutePath();
    if (!Files.isDirectory(from)) {
      throw new SetupException("exec option " + ExecProvider.FILES + "=" + o.text(
          ExecProvider.FILES) + ": " + from + " is not a directory");
    }
    // inside the run directory, which every runtime shares with the nodes (containers bind it)
    Path to = ctx.dir().resolve("files").toAbsolutePath();
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : all.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    } catch (IOException e) {
      throw new SetupException("exec: cannot copy " + from + " to " + to + ": " + e.getMessage(),
          e);
    }
    return to.toString();
  }

  private void launch(String node) {
    List<String> command = commands.get(node);
    try {
      started(node, runtime().start(node, command, context().log(node)));
    } catch (IOException e) {
      throw new SetupException("exec node " + node + ": cannot run `" + String.join(" ", command)
          + "`: " + e.getMessage(), e);
    }
  }

  private void awaitReady(String node) {
    try {
      process(node).awaitLine(readyLine, startTimeout);
    } catch (SetupException e) {
      throw new SetupException("exec node " + node + " (`" + String.join(" ", commands.get(node))
          + "`) did not print its ready line '" + readyLine + "': " + e.getMessage(), e);
    }
  }

  /** Starts {@code node} again (after a kill: same command, port and data) and waits for it. */
  @Override
  protected void startNode(String node) {
    launch(node);
    awaitReady(node);
  }

  /**
   * One read through a fresh client, with the start timeout: the client must start and answer
   * in the protocol (any result; a read changes nothing, so it leaves no trace in the history).
   */
  private void probe() {
    try (ExecClient c = newClient()) {
      c.exchange(new Operation(Operation.READ, 0, null), startTimeout, true);
    } catch (ExecClient.ProtocolException e) {
      throw new SetupException("exec client at set-up: " + e.getMessage(), e);
    }
  }

  @Override
  public Client openClient() {
    return newClient();
  }

  private ExecClient newClient() {
    if (clientCommand == null) {
      throw new IllegalStateException("exec is not started");
    }
    return new ExecClient(clientCommand.expand(shared), addresses, opTimeout,
        context().dir().resolve("clients.log"), this::note);
  }

  /**
   * Why the harness decided an operation's outcome itself: appended to {@code clients.log}
   * beside the clients' own standard error, since the history keeps no reasons; the first line
   * outside the protocol is also printed, once, so a client that breaks it now and then is not
   * a silent run of unknown operations.
   */
  private void note(String why) {
    Path log = context().dir().resolve("clients.log");
    synchronized (this) {
      try {
        Files.writeString(log, "partkit: " + why + "\n", StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      } catch (IOException e) {
        // the note is a courtesy; the outcome itself is recorded either way
      }
      if (!warned && why.contains(" with the line '")) {
        warned = true;
        System.err.println("exec: a client answered outside the protocol (recorded as info; every"
            + " such case is in " + log + "): " + why);
      }
    }
  }
}
