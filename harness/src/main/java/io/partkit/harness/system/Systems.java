package io.partkit.harness.system;

import java.util.List;

/** The systems under test by name. */
public final class Systems {

  /** The names {@link #named} knows, in the order the command line lists them. */
  public static final List<String> NAMES = List.of("kv", "etcd", "hazelcast", "ignite");

  private Systems() {}

  /**
   * A new, not yet started system called {@code name}.
   *
   * @throws IllegalArgumentException if the name is unknown (the message lists the known ones)
   */
  public static SystemUnderTest named(String name) {
    switch (String.valueOf(name)) {
      case "kv":
        return new KvSystem();
      case "etcd":
        return new EtcdSystem();
      case "hazelcast":
        return new HazelcastSystem();
      case "ignite":
        return new IgniteSystem();
      default:
        throw new IllegalArgumentException("unknown system '" + name + "': expected one of "
            + String.join(", ", NAMES));
    }
  }
}
