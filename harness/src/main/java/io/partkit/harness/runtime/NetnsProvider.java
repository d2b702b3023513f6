package io.partkit.harness.runtime;

/** {@code netns}: every node in a Linux network namespace of its own on a private bridge. */
public final class NetnsProvider implements RuntimeProvider {

  @Override
  public String name() {
    return "netns";
  }

  @Override
  public String description() {
    return "a Linux network namespace per node on a private bridge (needs root, ip, nft)";
  }

  @Override
  public Class<? extends NodeRuntime> type() {
    return NetnsRuntime.class;
  }

  @Override
  public NodeRuntime create(RuntimeContext context) {
    return new NetnsRuntime(context.dir());
  }
}
