package io.partkit.verification.checker;

import io.partkit.verification.history.Op;
import java.util.List;

/**
 * Why a history (or one key of it) is not linearizable, in the shape of Knossos' analysis: the
 * operation that could not be linearized after the longest prefixes the search found.
 *
 * @param op the operation whose completion came before any linearization could include it
 * @param message what the model said when asked to apply {@code op} after the first prefix
 * @param longestPrefixes the longest linearized prefixes found (at most a few), each with its state
 */
public record Evidence(Op op, String message, List<Prefix> longestPrefixes) {
  public Evidence {
    longestPrefixes = List.copyOf(longestPrefixes);
  }
}
