package io.partkit.verification.history;

import java.util.Locale;

/** The type of a history event, as Jepsen and Knossos spell it (without the colon). */
public enum OpType {
  /** A process started an operation. */
  INVOKE,
  /** The operation completed and took effect. */
  OK,
  /** The operation completed and certainly did not take effect. */
  FAIL,
  /**
   * The outcome is unknown: the operation may take effect at any point after its invocation, or
   * never.
   */
  INFO;

  /** The Jepsen name: {@code invoke}, {@code ok}, {@code fail}, {@code info}. */
  public String jepsenName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a Jepsen type name, with or without a leading colon.
   *
   * @throws IllegalArgumentException if the name is not one of invoke, ok, fail, info
   */
  public static OpType parse(String name) {
    OpType t = find(name);
    if (t == null) {
      throw new IllegalArgumentException("type must be one of invoke, ok, fail, info: " + name);
    }
    return t;
  }

  /** As {@link #parse}, or null for a name that is none of them (the readers' fast path). */
  static OpType find(String name) {
    // compared in place: a switch on the string would hash it, once per event of a long history
    int o = name.startsWith(":") ? 1 : 0;
    int n = name.length() - o;
    if (n == 6 && name.startsWith("invoke", o)) {
      return INVOKE;
    }
    if (n == 2 && name.startsWith("ok", o)) {
      return OK;
    }
    if (n == 4 && name.startsWith("fail", o)) {
      return FAIL;
    }
    if (n == 4 && name.startsWith("info", o)) {
      return INFO;
    }
    return null;
  }
}
