package io.partkit.verification.checker;

import io.partkit.verification.history.Op;
import java.util.List;

/**
 * A linearized prefix the search reached, and the model state after it.
 *
 * @param ops the operations in linearization order (as given to the model)
 * @param state the model state after them
 */
public record Prefix(List<Op> ops, Object state) {
  public Prefix {
    ops = List.copyOf(ops);
  }
}
