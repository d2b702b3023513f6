package io.partkit.harness.runtime;

/** {@code containers}: every node in a container of its own on a Docker engine. */
public final class ContainersProvider implements RuntimeProvider {

  /**
   * The nodes' image: partkit's (built by {@code tools/build-node-image}) or one with java 17 on
   * the PATH, sh, mkfifo, grep, setpriv and, for partitions, nft. {@code --runtime
   * containers:IMAGE} on the command line sets it.
   */
  public static final RuntimeOption<String> IMAGE = RuntimeOption.text("image",
      ContainerRuntime.DEFAULT_IMAGE, "an image in the engine, never pulled (partkit's: "
          + "tools/build-node-image)")
      .also(v -> v.chars().anyMatch(Character::isWhitespace) ? "has blanks" : null);

  @Override
  public String name() {
    return "containers";
  }

  @Override
  public String description() {
    return "a container per node on a Docker engine, with real partitions and no root";
  }

  @Override
  public RuntimeOptions options() {
    return RuntimeOptions.of(name(), IMAGE);
  }

  @Override
  public Class<? extends NodeRuntime> type() {
    return ContainerRuntime.class;
  }

  @Override
  public NodeRuntime create(RuntimeContext context) {
    return new ContainerRuntime(context.dir(), context.options().get(IMAGE));
  }
}
