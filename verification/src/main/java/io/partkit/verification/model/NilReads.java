package io.partkit.verification.model;

/**
 * What an {@code :ok} read whose value is {@code nil} means to the register models
 * ({@code register}, {@code cas-register}, {@code multi-register}).
 *
 * <p>Two readings exist because recorded histories use nil for two things. Knossos' models treat
 * it as "the client did not learn the value" (a wildcard), and many Jepsen histories rely on that:
 * a checker swapped in for Knossos must not call them invalid. Histories whose client records an
 * unset key as nil (etcd's, partkit's harness) mean "the register held nil", which only the strict
 * reading checks.
 */
public enum NilReads {
  /**
   * Knossos' reading, the default: an {@code :ok} read of nil constrains nothing (in
   * multi-register, a {@code [:read k nil]} micro-op constrains nothing).
   */
  KNOSSOS,
  /** An {@code :ok} read of nil means the register held nil (was never written, or written nil). */
  STRICT;

  /** True when an :ok read that returned {@code value} must be checked against the state. */
  boolean constrains(Object value) {
    return value != null || this == STRICT;
  }
}
