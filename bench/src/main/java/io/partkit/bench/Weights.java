package io.partkit.bench;

/** How member weights are chosen for a measured cluster. */
public enum Weights {
  /** Every member has weight 1. */
  EQUAL,
  /** Members have weights 1, 2 and 4 by turns (in id order): a mix of small and large machines. */
  MIXED;

  /** Weight of the member at {@code index} (0-based, in id order). */
  int weightOf(int index) {
    return this == EQUAL ? 1 : 1 << (index % 3);
  }

  /** Lower-case label used in the report. */
  String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
