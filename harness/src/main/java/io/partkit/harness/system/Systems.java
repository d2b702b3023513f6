package io.partkit.harness.system;

import java.util.List;

/** The systems a run can test, by name. */
public final class Systems {

  /** The names {@link #named} knows. */
  public static final List<String> NAMES = List.of("kv");

  private Systems() {}

  /**
   * A new, not yet started system called {@code name}.
   *
   * @throws IllegalArgumentException for an unknown name, listing the known ones
   */
  public static SystemUnderTest named(String name) {
    switch (name) {
      case "kv":
        return new KvSystem();
      default:
        throw new IllegalArgumentException("unknown system '" + name + "': expected one of "
            + String.join(", ", NAMES));
    }
  }
}
