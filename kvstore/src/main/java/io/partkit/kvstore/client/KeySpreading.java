package io.partkit.kvstore.client;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The routing client's table of spread keys and their encoding: a spread key's writes go to one
 * of {@code ways} sub-keys ({@code key || 0x00 "spread" i}), which hash to other partitions, and
 * each sub-key's value is {@code magic, int64 stamp, int64 writer, value}. A read takes the
 * value with the highest (stamp, writer) over the sub-keys, or the key's own value (written
 * before the key was spread) when no sub-key has one. See {@link SpreadWrites} for the cost.
 */
public final class KeySpreading {

  static final int MIN_WAYS = 2;
  static final int MAX_WAYS = 64;
  /** Sub-key suffix before the index: a 0 byte, so a printable key never ends with it. */
  private static final byte[] SUFFIX = "\0spread".getBytes(StandardCharsets.US_ASCII);
  private static final byte MAGIC = (byte) 0xA7;
  private static final int HEADER = 1 + 8 + 8;
  /** What a sub-key adds to its key, and a sub-key's value to the value it stamps. */
  static final int KEY_EXTRA = 7 + 1;
  static final int VALUE_EXTRA = HEADER;

  /** One spread key's settings. */
  record Spread(int ways, SpreadWrites order) {}

  /** A sub-key's value, decoded. */
  record Stamped(long stamp, long writer, byte[] value) {

    boolean newerThan(Stamped other) {
      return other == null || stamp > other.stamp
          || stamp == other.stamp && Long.compareUnsigned(writer, other.writer) > 0;
    }
  }

  private final Map<ByteBuffer, Spread> spread;
  private final long writer;
  private final LongSupplier wallMillis;
  /** The hybrid logical clock: milliseconds in the high bits, a counter in the low 16. */
  private final AtomicLong clock = new AtomicLong();

  KeySpreading(Map<ByteBuffer, Spread> spread, long writer, LongSupplier wallMillis) {
    this.spread = Map.copyOf(spread);
    this.writer = writer;
    this.wallMillis = wallMillis;
  }

  /**
   * Checks a key and its ways for {@link KvClient.Builder#spreadKey}.
   *
   * @throws IllegalArgumentException with the reason
   */
  static void check(Map<ByteBuffer, Spread> spread, byte[] key, int ways) {
    if (key.length == 0) {
      throw new IllegalArgumentException("a spread key must not be empty");
    }
    if (ways < MIN_WAYS || ways > MAX_WAYS) {
      throw new IllegalArgumentException("a key is spread over " + MIN_WAYS + ".." + MAX_WAYS
          + " sub-keys: " + ways + " for key 0x" + HexFormat.of().formatHex(key));
    }
    if (isSubKey(key)) {
      throw new IllegalArgumentException("key 0x" + HexFormat.of().formatHex(key)
          + " is itself a sub-key of a spread key (it ends with 0x00 'spread' and an index)");
    }
    if (spread.containsKey(ByteBuffer.wrap(key))) {
      throw new IllegalArgumentException("key 0x" + HexFormat.of().formatHex(key)
          + " is spread twice");
    }
  }

  /** Whether no key is spread (the request path then does no lookup at all). */
  boolean isEmpty() {
    return spread.isEmpty();
  }

  /** The key's settings, or null when it is not spread. */
  Spread of(byte[] key) {
    return spread.get(ByteBuffer.wrap(key));
  }

  public static byte[] subKey(byte[] key, int index) {
    byte[] sub = Arrays.copyOf(key, key.length + SUFFIX.length + 1);
    System.arraycopy(SUFFIX, 0, sub, key.length, SUFFIX.length);
    sub[sub.length - 1] = (byte) index;
    return sub;
  }

  private static boolean isSubKey(byte[] key) {
    int at = key.length - SUFFIX.length - 1;
    return at >= 0 && Arrays.equals(key, at, at + SUFFIX.length, SUFFIX, 0, SUFFIX.length);
  }

  /** A stamp above every one this client issued or saw, and not behind its wall clock. */
  long nextStamp() {
    long wall = wallMillis.getAsLong() << 16;
    return clock.updateAndGet(last -> Math.max(last + 1, wall));
  }

  /** Moves the clock past a stamp read from the store. */
  void observe(long stamp) {
    clock.accumulateAndGet(stamp, Math::max);
  }

  byte[] encode(long stamp, byte[] value) {
    return ByteBuffer.allocate(HEADER + value.length).put(MAGIC).putLong(stamp).putLong(writer)
        .put(value).array();
  }

  long writer() {
    return writer;
  }

  /**
   * Decodes a sub-key's value (null: absent).
   *
   * @throws KvException if it was not written by a spreading client
   */
  static Stamped decode(byte[] key, int index, byte[] raw) {
    if (raw == null) {
      return null;
    }
    if (raw.length < HEADER || raw[0] != MAGIC) {
      throw new KvException("sub-key " + index + " of spread key 0x"
          + HexFormat.of().formatHex(key) + " holds a value no spreading client wrote: every"
          + " client must spread the same keys, and nothing else may write their sub-keys",
          false, null);
    }
    ByteBuffer b = ByteBuffer.wrap(raw);
    b.get();
    long stamp = b.getLong();
    long writer = b.getLong();
    return new Stamped(stamp, writer, Arrays.copyOfRange(raw, HEADER, raw.length));
  }

  /** A builder's table. */
  static Map<ByteBuffer, Spread> table() {
    return new HashMap<>();
  }
}
