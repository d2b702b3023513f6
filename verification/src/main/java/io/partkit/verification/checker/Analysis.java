package io.partkit.verification.checker;

import java.util.List;
import java.util.Optional;

/**
 * The result of checking a history: the verdict, the cause when unknown, and one result per key.
 *
 * @param verdict invalid if any key is invalid, else unknown if any key is unknown, else valid
 * @param cause for an unknown verdict, the first cause (time limit, memory guard)
 * @param keys the per-key results in the order the keys first appear in the history
 * @param nanos how long the check took
 */
public record Analysis(Verdict verdict, String cause, List<KeyResult> keys, long nanos) {
  public Analysis {
    keys = List.copyOf(keys);
  }

  /** The first invalid key's result, if any. */
  public Optional<KeyResult> failure() {
    return keys.stream().filter(k -> k.verdict() == Verdict.INVALID).findFirst();
  }

  /** True when the verdict is {@link Verdict#VALID}. */
  public boolean isValid() {
    return verdict == Verdict.VALID;
  }
}
