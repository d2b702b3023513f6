package io.partkit.harness.exec;

import io.partkit.harness.system.SystemOptions;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.SystemUnderTest;
import java.util.Set;

/**
 * {@code --system exec}: binaries of your own, in any language, driven through a node command
 * template and a JSON-lines client command (see {@link ExecSystem}).
 */
public final class ExecProvider implements SystemProvider {

  static final String NODE_COMMAND = "node-command";
  static final String CLIENT_COMMAND = "client-command";
  static final String READY_LINE = "ready-line";
  static final String OP_TIMEOUT = "op-timeout-ms";
  static final String START_TIMEOUT = "start-timeout-ms";
  static final String FILES = "files";

  /** What a node command may name; see {@link ExecSystem} for the values. */
  static final Set<String> NODE_PLACEHOLDERS =
      Set.of("id", "index", "host", "port", "address", "data", "peers", "nodes", "files");
  /** What a client command may name: it serves every node, so nothing of one node. */
  static final Set<String> CLIENT_PLACEHOLDERS = Set.of("nodes", "files");

  @Override
  public String name() {
    return "exec";
  }

  @Override
  public String description() {
    return "your own binaries: a node command template and a JSON-lines client, any language";
  }

  @Override
  public int defaultNodes() {
    return 3;
  }

  @Override
  public SystemOptions options() {
    return SystemOptions.of(name(),
        SystemOptions.also(SystemOptions.text(NODE_COMMAND, null,
            "required: a command with {port} or {address}; also {id}, {index}, {host}, {data}, "
                + "{peers}, {nodes}, {files}"),
            (value, nodes) -> {
              try {
                CommandTemplate t = CommandTemplate.parse(value, NODE_PLACEHOLDERS);
                return t.uses("port") || t.uses("address") ? null
                    : "names neither {port} nor {address}, so clients could not find the node";
              } catch (IllegalArgumentException e) {
                return e.getMessage();
              }
            }),
        SystemOptions.also(SystemOptions.text(CLIENT_COMMAND, null,
            "required: a command speaking JSON lines on stdin/stdout; may name {nodes}, {files}"),
            (value, nodes) -> {
              try {
                CommandTemplate.parse(value, CLIENT_PLACEHOLDERS);
                return null;
              } catch (IllegalArgumentException e) {
                return e.getMessage();
              }
            }),
        SystemOptions.text(READY_LINE, "READY",
            "the start of the line a node prints on stdout once it serves"),
        SystemOptions.integer(OP_TIMEOUT, 2000, 10, 600_000),
        SystemOptions.integer(START_TIMEOUT, 30_000, 100, 600_000),
        SystemOptions.text(FILES, null,
            "a directory copied into the run directory, named by {files} (for containers)"));
  }

  @Override
  public SystemUnderTest create() {
    return new ExecSystem();
  }
}
