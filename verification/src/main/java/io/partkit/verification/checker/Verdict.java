package io.partkit.verification.checker;

/** The outcome of a check. */
public enum Verdict {
  /** Some linearization exists. */
  VALID,
  /** No linearization exists; the analysis carries evidence. */
  INVALID,
  /** The check stopped before it knew (time limit, memory guard, cancelled): see the cause. */
  UNKNOWN;

  /** The worse of two verdicts: invalid beats unknown beats valid. */
  public Verdict worst(Verdict other) {
    return this == INVALID || other == INVALID
        ? INVALID
        : (this == UNKNOWN || other == UNKNOWN ? UNKNOWN : VALID);
  }
}
