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
 * @param mismatch a failure that is the system's answer, not its absence: a cas that found
 *     another value ({@link #mismatch}); the run counts it as answered beside its availability
 */
public record Outcome(OpType type, Object value, String error, boolean mismatch) {

  public Outcome {
    Objects.requireNonNull(type, "type");
    if (type == OpType.INVOKE) {
      throw new IllegalArgumentException("an outcome is ok, fail or info, not invoke");
    }
    if (mismatch && type != OpType.FAIL) {
      throw new IllegalArgumentException("only a failure is a mismatch, not " + type);
    }
  }

  /** An outcome that is not a mismatch. */
  public Outcome(OpType type, Object value, String error) {
    this(type, value, error, false);
  }

  public static Outcome ok(Object value) {
    return new Outcome(OpType.OK, value, null);
  }

  public static Outcome fail(Object value, String error) {
    return new Outcome(OpType.FAIL, value, error);
  }

  /**
   * A failure that the system answered from its semantics while available: a compare-and-set
   * that found another value than the expected one. Not for a refusal or an unreachable node
   * ({@link #fail}): those are unavailability.
   */
  public static Outcome mismatch(Object value, String error) {
    return new Outcome(OpType.FAIL, value, error, true);
  }

  public static Outcome info(Object value, String error) {
    return new Outcome(OpType.INFO, value, error);
  }
}
