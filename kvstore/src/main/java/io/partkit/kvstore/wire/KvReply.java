package io.partkit.kvstore.wire;

import static java.util.Objects.requireNonNull;

/**
 * A node's answer to one request, as it came over the wire. Public only because the kvstore's
 * packages share it: it is the wire protocol, which may change in any release; applications see
 * values and the client's {@code KvException}.
 *
 * @param status what happened
 * @param epoch the node's epoch for the partition (for REDIRECT and MOVING: the newer epoch the
 *     client should refresh its table to)
 * @param value the value read (GET), the current value (CAS_FAILED), or null
 * @param message a human-readable reason for anything but OK, or null
 */
public record KvReply(Status status, long epoch, byte[] value, String message) {

  /** What a node did with a request. The ordinal is the wire code: append, never reorder. */
  public enum Status {
    /** Done (and durable, for a write). */
    OK,
    /** A compare-and-set found another value; {@link #value()} holds the current one. */
    CAS_FAILED,
    /** The partition is being moved: not applied, retry after a short backoff. */
    MOVING,
    /** Not applied: this node does not own the partition at the request's epoch. */
    REDIRECT,
    /** An administrative step the partition's state does not allow (see the message). */
    REFUSED,
    /** A malformed request or a failure on the node (see the message). */
    ERROR,
    /**
     * Not acknowledged: a replica of the partition could not be reached or refused. A write may
     * still take effect (its outcome is unknown); a read had no effect and may be retried.
     */
    UNAVAILABLE
  }

  /** Canonical constructor. */
  public KvReply {
    requireNonNull(status, "status");
  }

  public static KvReply ok(long epoch, byte[] value) {
    return new KvReply(Status.OK, epoch, value, null);
  }

  public static KvReply of(Status status, long epoch, String message) {
    return new KvReply(status, epoch, null, message);
  }

  /** True when the request was carried out. */
  public boolean isOk() {
    return status == Status.OK;
  }

  @Override
  public String toString() {
    return "KvReply{" + status + ", epoch=" + epoch
        + (value == null ? "" : ", value=" + value.length + " bytes")
        + (message == null ? "" : ", " + message) + "}";
  }
}
