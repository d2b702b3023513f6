package io.partkit.verification.checker;

import io.partkit.verification.history.Op;
import java.util.List;

/**
 * The result for one key of a history (the whole history when it has no keys).
 *
 * @param key the key, or null for operations without a key
 * @param verdict valid, invalid or unknown
 * @param cause why the verdict is unknown, else null
 * @param linearization for a valid key, one linearization (operations as given to the model)
 * @param evidence for an invalid key, the evidence, else null
 * @param operations how many client operations (invocations) the key has
 * @param steps how many search steps were taken
 */
public record KeyResult(
    Object key,
    Verdict verdict,
    String cause,
    List<Op> linearization,
    Evidence evidence,
    int operations,
    long steps) {
  public KeyResult {
    linearization = linearization == null ? List.of() : List.copyOf(linearization);
  }
}
