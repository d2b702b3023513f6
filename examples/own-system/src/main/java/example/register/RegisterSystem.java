package example.register;

import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.JavaCommand;
import io.partkit.harness.system.NodeProcessSystem;
import io.partkit.harness.system.SystemContext;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The example system under test: {@code n} {@link RegisterServer} processes {@code r1..rN}, each
 * key's register on one of them ({@code key mod n}). Everything about processes (kill, restart,
 * pause, resume, stopping them all) comes from {@link NodeProcessSystem}; this class says how a
 * node starts and how a client reaches a key. It offers the capabilities kill and pause, so the
 * harness refuses a membership nemesis on it before anything starts.
 */
final class RegisterSystem extends NodeProcessSystem {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final Map<String, List<String>> commands = new HashMap<>();

  RegisterSystem() {
    super("register");
  }

  @Override
  public void start(SystemContext ctx) {
    String durable = ctx.options().text("durable"); // checked, default applied
    for (String n : openNodes(ctx, "r", List.of())) {
      commands.put(n, JavaCommand.of("64m", RegisterServer.class, List.of(
          "--host", runtime().host(n), "--port", Integer.toString(port(n)),
          "--log", ctx.dir().resolve("data").resolve(n + ".log").toString(),
          "--durable", durable)));
      startNode(n);
    }
  }

  private int port(String node) {
    return runtime().port(node, "register", 7400);
  }

  /** Starts the node's process (again, after a kill) and waits until it listens. */
  @Override
  protected void startNode(String node) {
    try {
      started(node, runtime().start(node, commands.get(node), context().log(node)))
          .awaitLine("REGISTER READY ", START_TIMEOUT);
    } catch (IOException e) {
      throw new SetupException("cannot start register node " + node + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Client openClient() {
    return new RegisterClient(nodes().stream()
        .map(n -> runtime().host(n) + ":" + port(n)).toList());
  }
}
