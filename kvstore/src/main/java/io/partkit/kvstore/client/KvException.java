package io.partkit.kvstore.client;

/**
 * A request the {@link KvClient} could not complete.
 *
 * <p>{@link #indeterminate()} tells the two cases apart that a correctness checker must: false
 * when the request was certainly not applied (every node refused it, or none could be reached
 * before it was sent), true when it may have been (a connection broke or timed out after the
 * request was sent: Jepsen's {@code :info}).
 */
public final class KvException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final boolean indeterminate;

  public KvException(String message, boolean indeterminate, Throwable cause) {
    super(message, cause);
    this.indeterminate = indeterminate;
  }

  /** True when the operation may have taken effect although it failed. */
  public boolean indeterminate() {
    return indeterminate;
  }
}
