package io.partkit.replica.node;

import io.partkit.replica.Bytes;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Request;

/**
 * The largest key and value a replica node takes ({@link ReplicaClient#MAX_KEY_BYTES}, {@link
 * ReplicaClient#MAX_VALUE_BYTES}), and the check the client and the node both make.
 *
 * <p>Why these sizes. Every frame and every log record is at most {@link Codec#MAX_FRAME} (16
 * MiB), and a node that cannot append a record stops (a failed append is a failed log): a write
 * the node took must fit every frame and record that will ever carry it, or one client's PUT
 * could stop every node of its partition. The largest carriers of one write are a CAS request
 * (its key, its expected value and its new value) and a backup's log record of it (key and value
 * with a few numbers). The carriers of many writes are bounded by bytes in the core: a round's
 * replication is one message per write, a level's tail and a rebase record hold at most two
 * copies' last writes ({@code Replica.TAIL_BYTES}, 2 MiB each, keys and values counted), and a
 * copy's page, a scan's page stop at 256 KiB and 1 MiB unless their one entry is larger. So one
 * key and two values, with {@link #HEADROOM} for the envelope's numbers and lengths, must fit in
 * a frame: a key of 64 KiB, a value of (16 MiB - 64 KiB - 64 KiB) / 2 =
 * 8,323,072 bytes. A checkpoint puts a partition's data in pages of about 1 MiB ({@code
 * Replica.CHECKPOINT_PAGE_BYTES}), a record each, so a page with one entry of the largest size
 * fits too.
 */
final class SizeLimits {

  /** The largest key, in bytes: 64 KiB. */
  static final int MAX_KEY_BYTES = 64 << 10;

  /** What a frame or log record holds besides one key and two values, at most (with room). */
  static final int HEADROOM = 64 << 10;

  /** The largest value, in bytes: (16 MiB - 64 KiB - 64 KiB) / 2 = 8,323,072. */
  static final int MAX_VALUE_BYTES = (Codec.MAX_FRAME - MAX_KEY_BYTES - HEADROOM) / 2;

  /** What a refusal over a limit says, so that a client knows it from a routing refusal. */
  static final String OVER = " bytes is over the limit of ";

  private SizeLimits() {}

  /**
   * Why a request with a key of {@code key} bytes, an expected value of {@code expected} and a
   * value of {@code value} bytes (-1: none) is refused, or null when all are within the limits.
   */
  static String problem(long key, long expected, long value) {
    if (key > MAX_KEY_BYTES) {
      return "a key of " + key + OVER + MAX_KEY_BYTES + " bytes (ReplicaClient.MAX_KEY_BYTES)";
    }
    if (expected > MAX_VALUE_BYTES) {
      return "an expected value of " + expected + OVER + MAX_VALUE_BYTES
          + " bytes (ReplicaClient.MAX_VALUE_BYTES)";
    }
    if (value > MAX_VALUE_BYTES) {
      return "a value of " + value + OVER + MAX_VALUE_BYTES
          + " bytes (ReplicaClient.MAX_VALUE_BYTES)";
    }
    return null;
  }

  /** Why {@code r} is refused for its sizes, or null when they are within the limits. */
  static String problem(Request r) {
    return problem(r.key().length(), length(r.expected()), length(r.value()));
  }

  /**
   * Refuses a client's {@code kind} of {@code key} ({@code expected}, {@code value}: null for
   * none) over the limits, before anything is sent.
   *
   * @throws IllegalArgumentException naming the operation, the size and the limit
   */
  static void check(Kind kind, byte[] key, byte[] expected, byte[] value) {
    String problem = problem(key.length, expected == null ? -1 : expected.length,
        value == null ? -1 : value.length);
    if (problem != null) {
      throw new IllegalArgumentException(kind.name().toLowerCase(java.util.Locale.ROOT) + ": "
          + problem);
    }
  }

  private static long length(Bytes b) {
    return b == null ? -1 : b.length();
  }
}
