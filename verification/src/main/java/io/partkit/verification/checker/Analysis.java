package io.partkit.verification.checker;

import java.util.List;
import java.util.Optional;

/**
 * The result of checking a history: the verdict, the cause when unknown, and one result per key.
 *
 * @param verdict invalid if any key is invalid, else unknown if any key is unknown, else valid
 * @param cause for an unknown verdict, the first cause (time limit, memory guard)
 * @param keys the per-key results in the order the keys first appear in the history
 * @param nanos how long the check took, evidence included
 * @param verdictNanos how long it took to reach the verdict (validation, splitting and the
 *     searches)
 * @param evidenceNanos how long the evidence of invalid keys took after the verdict (0 when valid)
 */
public record Analysis(
    Verdict verdict,
    String cause,
    List<KeyResult> keys,
    long nanos,
    long verdictNanos,
    long evidenceNanos) {
  public Analysis {
    keys = List.copyOf(keys);
  }

  /** An analysis whose time is not split into verdict and evidence. */
  public Analysis(Verdict verdict, String cause, List<KeyResult> keys, long nanos) {
    this(verdict, cause, keys, nanos, nanos, 0);
  }

  /** The first invalid key's result, if any. */
  public Optional<KeyResult> failure() {
    return keys.stream().filter(k -> k.verdict() == Verdict.INVALID).findFirst();
  }

  /**
   * The client operations checked, over all keys: 0 for a history of the nemesis alone, which is
   * valid as Knossos answers (no client did anything that could be wrong).
   */
  public long clientOperations() {
    long n = 0;
    for (KeyResult k : keys) {
      n += k.operations();
    }
    return n;
  }

  /** True when the verdict is {@link Verdict#VALID}. */
  public boolean isValid() {
    return verdict == Verdict.VALID;
  }
}
