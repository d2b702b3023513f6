package io.partkit.harness.runtime;

/** {@code processes}: every node a process on loopback, with ports of its own. */
public final class ProcessesProvider implements RuntimeProvider {

  @Override
  public String name() {
    return "processes";
  }

  @Override
  public String description() {
    return "processes on 127.0.0.1 (the default): kill, pause, restart; no network cuts";
  }

  @Override
  public Class<? extends NodeRuntime> type() {
    return LocalProcessRuntime.class;
  }

  @Override
  public NodeRuntime create(RuntimeContext context) {
    return new LocalProcessRuntime();
  }
}
