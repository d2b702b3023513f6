package io.partkit.harness.system;

import io.partkit.verification.history.OpType;
import java.util.Objects;

/**
 * How an operation ended, recorded as its completion.
 *
 * <p>The honesty rule of Jepsen: {@link OpType#FAIL} only when the operation surely did not take
 * effect (refused, never sent, a cas that found another value); {@link OpType#INFO} whenever it
 * may have (a timeout or a lost connection after sending). A read changes nothing, so a read that
 * did not answer may be recorded as a failure.
 *
 * @param type ok, fail or info
 * @param value for an ok read, the value read (null: absent); otherwise the operation's argument
 * @param error why it failed or is unknown, else null
 */
public record Outcome(OpType type, Object value, String error) {

  public Outcome {
    Objects.requireNonNull(type, "type");
    if (type == OpType.INVOKE) {
      throw new IllegalArgumentException("an outcome is ok, fail or info, not invoke");
    }
  }

  public static Outcome ok(Object value) {
    return new Outcome(OpType.OK, value, null);
  }

  public static Outcome fail(Object value, String error) {
    return new Outcome(OpType.FAIL, value, error);
  }

  public static Outcome info(Object value, String error) {
    return new Outcome(OpType.INFO, value, error);
  }
}
