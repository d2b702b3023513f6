package io.partkit.kvstore;

/**
 * The largest key and value a client may write: the one source of truth for both, checked by
 * the clients before anything is sent and by the nodes before anything is logged or replicated.
 *
 * <p>Derived from the largest frame ({@link #MAX_FRAME_BYTES}, 64 MiB), which also bounds a
 * write-ahead log record on replay. The frame that carries the most of a key and its values is a
 * compare-and-set: one key and two values (expected and new), so
 * {@code MAX_KEY_BYTES + 2 * MAX_VALUE_BYTES + HEADROOM = MAX_FRAME_BYTES}. The headroom
 * (64 KiB) holds every header, message and replica address that shares a frame or record with
 * them: a PUT, a REPLICATE, a CONFIRM answer (the last replicated write), a compare-and-set's
 * answer with the differing value, a copy page (at most about 1 MiB of entries before its last
 * one, see {@code NodeMigration}), the log's put and replica records, and the compaction's.
 */
public final class KvLimits {

  /**
   * The largest frame a node or a client accepts, and the largest write-ahead log record: 64 MiB,
   * so that a corrupt length cannot make a peer allocate gigabytes. Here rather than in the wire
   * protocol because the key and value limits are derived from it, and the protocol reads them.
   */
  public static final int MAX_FRAME_BYTES = 64 << 20;

  /** The largest key, in bytes: 64 KiB. */
  public static final int MAX_KEY_BYTES = 64 << 10;

  /** What a frame or log record holds besides one key and two values, at most. */
  static final int HEADROOM = 64 << 10;

  /** The largest value, in bytes: (64 MiB - 64 KiB - 64 KiB) / 2 = 33,488,896 (32 MiB - 64 KiB). */
  public static final int MAX_VALUE_BYTES = (MAX_FRAME_BYTES - MAX_KEY_BYTES - HEADROOM) / 2;

  private KvLimits() {}

  /**
   * Why a write of a key of {@code keyBytes} and a value of {@code valueBytes} is refused, or
   * null if both are within the limits; {@code where} names who refuses it.
   */
  public static String problem(String where, long keyBytes, long valueBytes) {
    if (keyBytes > MAX_KEY_BYTES) {
      return where + ": a key of " + keyBytes + " bytes is over the limit of " + MAX_KEY_BYTES
          + " bytes (KvLimits.MAX_KEY_BYTES)";
    }
    if (valueBytes > MAX_VALUE_BYTES) {
      return where + ": a value of " + valueBytes + " bytes is over the limit of "
          + MAX_VALUE_BYTES + " bytes (KvLimits.MAX_VALUE_BYTES)";
    }
    return null;
  }

  /**
   * Refuses a write whose key or value is over the limits.
   *
   * @throws IllegalArgumentException naming what is too large, by how much, and the limit
   */
  public static void check(String where, byte[] key, byte[] value) {
    String problem = problem(where, key == null ? 0 : key.length,
        value == null ? 0 : value.length);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }
}
