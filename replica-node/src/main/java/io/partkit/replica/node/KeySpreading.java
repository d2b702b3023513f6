package io.partkit.replica.node;

import io.partkit.replica.Bytes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;

/**
 * Spread keys ({@link ReplicaClient.Builder#spreadKey}): a hot key's writes go to one of {@code
 * ways} sub-keys, which hash to other partitions, and a read takes the newest value over the
 * sub-keys. This class holds their layout on the nodes, which is persisted format: every client
 * of a cluster, of any build, must read and write it the same, so it never changes.
 *
 * <ul>
 *   <li>Sub-key {@code i} (0 to {@code ways - 1}) of key {@code k}: {@code k}, a zero byte, the
 *       ASCII bytes {@code spread}, then {@code i} as one byte ({@link #subKey}): {@value
 *       #KEY_EXTRA} bytes more than the key. A key that ends so is itself a sub-key and cannot be
 *       spread.
 *   <li>A sub-key's value: the byte {@code 0xA7}, the write's stamp (eight bytes, big-endian,
 *       signed), the writer's number (eight bytes, big-endian, compared unsigned), then the
 *       value written: {@value #VALUE_EXTRA} bytes more than the value. A stamp is a hybrid
 *       logical clock, milliseconds of the writer's wall clock shifted left by 16 bits, the low
 *       16 bits a counter: above every stamp that writer issued or read. A writer's number is
 *       drawn at random by each client when it is made.
 *   <li>The key's value is the sub-keys' value of the highest (stamp, writer), or, while no
 *       sub-key has a value, the key's own value (one written before the key was spread).
 * </ul>
 */
public final class KeySpreading {

  /** The fewest sub-keys a key is spread over. */
  public static final int MIN_WAYS = 2;
  /** The most sub-keys a key is spread over. */
  public static final int MAX_WAYS = 64;
  /** What a sub-key adds to its key, in bytes. */
  public static final int KEY_EXTRA = 8;
  /** What a sub-key's value adds to the value written, in bytes. */
  public static final int VALUE_EXTRA = 17;

  /** A sub-key's suffix before its index: a zero byte, so a printable key never ends with it. */
  private static final byte[] SUFFIX = "\0spread".getBytes(StandardCharsets.US_ASCII);
  private static final byte MAGIC = (byte) 0xA7;

  /** One spread key's settings. */
  record Spread(int ways, SpreadWrites order) {}

  /** A sub-key's value, decoded. */
  record Stamped(long stamp, long writer, byte[] value) {

    /** Whether it is newer than {@code other} (null: none). */
    boolean newerThan(Stamped other) {
      return other == null || stamp > other.stamp
          || stamp == other.stamp && Long.compareUnsigned(writer, other.writer) > 0;
    }
  }

  /** A sub-key holds a value no spreading client wrote. */
  static final class Foreign extends Exception {
    private static final long serialVersionUID = 1L;

    Foreign(String message) {
      super(message, null, false, false);
    }
  }

  private final Map<Bytes, Spread> spread;
  private final long writer;
  private final LongSupplier wallMillis;
  private final IntUnaryOperator subKeyChoice;
  /** The hybrid logical clock: milliseconds in the high bits, a counter in the low 16. */
  private final AtomicLong clock = new AtomicLong();

  KeySpreading(Map<Bytes, Spread> spread, long writer, LongSupplier wallMillis,
      IntUnaryOperator subKeyChoice) {
    this.spread = Map.copyOf(spread);
    this.writer = writer;
    this.wallMillis = wallMillis;
    this.subKeyChoice = subKeyChoice;
  }

  /** A builder's table of spread keys. */
  static Map<Bytes, Spread> table() {
    return new HashMap<>();
  }

  /**
   * Checks a key and its ways for {@link ReplicaClient.Builder#spreadKey}.
   *
   * @throws IllegalArgumentException with the reason
   */
  static void check(Map<Bytes, Spread> spread, byte[] key, int ways) {
    if (key.length == 0) {
      throw new IllegalArgumentException("a spread key must not be empty");
    }
    if (ways < MIN_WAYS || ways > MAX_WAYS) {
      throw new IllegalArgumentException("a key is spread over " + MIN_WAYS + ".." + MAX_WAYS
          + " sub-keys: " + ways + " for key " + hex(key));
    }
    if (isSubKey(key)) {
      throw new IllegalArgumentException("key " + hex(key) + " is itself a sub-key of a spread"
          + " key (it ends with 0x00 'spread' and an index)");
    }
    if (key.length + KEY_EXTRA > ReplicaClient.MAX_KEY_BYTES) {
      throw new IllegalArgumentException("key of " + key.length + " bytes cannot be spread: its"
          + " sub-keys, " + KEY_EXTRA + " bytes longer, would be over the limit of "
          + ReplicaClient.MAX_KEY_BYTES + " bytes (ReplicaClient.MAX_KEY_BYTES)");
    }
    if (spread.containsKey(Bytes.of(key))) {
      throw new IllegalArgumentException("key " + hex(key) + " is spread twice");
    }
  }

  /** Whether no key is spread (a request then looks nothing up). */
  boolean isEmpty() {
    return spread.isEmpty();
  }

  /** The key's settings, or null when it is not spread. */
  Spread of(Bytes key) {
    return spread.isEmpty() ? null : spread.get(key);
  }

  /** Which sub-key a write goes to: at random (a test's choice in tests). */
  int choose(int ways) {
    return subKeyChoice.applyAsInt(ways);
  }

  /** Sub-key {@code index} of {@code key}: the key, 0x00 {@code spread}, the index's byte. */
  public static byte[] subKey(byte[] key, int index) {
    if (index < 0 || index >= MAX_WAYS) {
      throw new IllegalArgumentException("a sub-key's index is 0.." + (MAX_WAYS - 1) + ": "
          + index);
    }
    byte[] sub = Arrays.copyOf(key, key.length + KEY_EXTRA);
    System.arraycopy(SUFFIX, 0, sub, key.length, SUFFIX.length);
    sub[sub.length - 1] = (byte) index;
    return sub;
  }

  /** Whether {@code key} has a sub-key's form (it ends with 0x00 {@code spread} and a byte). */
  public static boolean isSubKey(byte[] key) {
    int at = key.length - KEY_EXTRA;
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

  /** This client's writer number. */
  long writer() {
    return writer;
  }

  /** A sub-key's value for {@code value} written under {@code stamp} by this client. */
  byte[] encode(long stamp, byte[] value) {
    return encode(stamp, writer, value);
  }

  /** A sub-key's value: the magic byte, the stamp, the writer, the value. */
  static byte[] encode(long stamp, long writer, byte[] value) {
    return ByteBuffer.allocate(VALUE_EXTRA + value.length).put(MAGIC).putLong(stamp)
        .putLong(writer).put(value).array();
  }

  /**
   * Sub-key {@code index}'s value {@code raw} of {@code key}, decoded (null: absent).
   *
   * @throws Foreign when it was not written by a spreading client
   */
  static Stamped decode(byte[] key, int index, byte[] raw) throws Foreign {
    if (raw == null) {
      return null;
    }
    if (raw.length < VALUE_EXTRA || raw[0] != MAGIC) {
      throw new Foreign("sub-key " + index + " of spread key " + hex(key) + " holds a value no"
          + " spreading client wrote: every client must spread the same keys, and nothing else"
          + " may write their sub-keys");
    }
    ByteBuffer b = ByteBuffer.wrap(raw);
    b.get();
    long stamp = b.getLong();
    long writer = b.getLong();
    return new Stamped(stamp, writer, Arrays.copyOfRange(raw, VALUE_EXTRA, raw.length));
  }

  static String hex(byte[] key) {
    return "0x" + HexFormat.of().formatHex(key);
  }
}
