package io.partkit.kvstore.wire;

import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A partition scheme as bytes, for the SPLIT request and its log record: the node renumbers its
 * keys with the scheme's own key -> partition function (the one {@code RoutingKvClient} routes
 * by), so it needs the scheme itself, not a copy of its hash.
 *
 * <pre>
 * scheme = int8 kind, utf key hash (a {@link KeyHash} constant's name), then per kind:
 *   1 (hash slots)   int32 count
 *   2 (token ranges) int32 n, n x int64 token (strictly increasing)
 *   3 (key ranges)   int32 n, n x bytes split key (strictly increasing, unsigned byte order)
 * </pre>
 */
public final class SchemeCodec {

  private static final int SLOTS = 1;
  private static final int RING = 2;
  private static final int KEYS = 3;

  private SchemeCodec() {}

  public static byte[] encode(PartitionScheme scheme) {
    Wire.Writer w = new Wire.Writer();
    if (scheme instanceof HashSlots slots) {
      w.i8(SLOTS).utf(slots.keyHash().name()).i32(slots.count());
    } else if (scheme instanceof TokenRanges ring) {
      long[] tokens = ring.tokens();
      w.i8(RING).utf(ring.keyHash().name()).i32(tokens.length);
      for (long t : tokens) {
        w.i64(t);
      }
    } else if (scheme instanceof KeyRanges ranges) {
      w.i8(KEYS).utf(ranges.keyHash().name()).i32(ranges.splitCount());
      for (byte[] split : ranges.splits()) {
        w.bytes(split);
      }
    } else {
      throw new IllegalArgumentException("unknown scheme " + scheme);
    }
    return w.toBytes();
  }

  /**
   * @throws IOException if the bytes are not a scheme (truncated, unknown kind or key hash, bad
   *     tokens)
   */
  public static PartitionScheme decode(byte[] bytes) throws IOException {
    if (bytes == null) {
      throw new IOException("no scheme given");
    }
    Wire.Reader r = new Wire.Reader(bytes);
    int kind = r.i8();
    KeyHash hash;
    try {
      hash = KeyHash.valueOf(r.utf());
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IOException("unknown key hash in a scheme: " + e.getMessage(), e);
    }
    try {
      if (kind == SLOTS) {
        return new HashSlots(r.i32(), hash);
      }
      if (kind == RING) {
        int n = r.i32();
        if (n < 1 || n > (bytes.length / Long.BYTES)) {
          throw new IOException("a ring of " + n + " tokens does not fit in " + bytes.length
              + " bytes");
        }
        long[] tokens = new long[n];
        for (int i = 0; i < n; i++) {
          tokens[i] = r.i64();
        }
        return TokenRanges.of(hash, tokens);
      }
      if (kind == KEYS) {
        int n = r.i32();
        if (n < 0 || n > bytes.length / Integer.BYTES) {
          throw new IOException("key ranges of " + n + " split keys do not fit in "
              + bytes.length + " bytes");
        }
        List<byte[]> splits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          byte[] split = r.bytes();
          if (split == null) {
            throw new IOException("key ranges: split key " + i + " is absent");
          }
          splits.add(split);
        }
        if (hash != KeyHash.ORDERED_PREFIX) {
          throw new IOException("key ranges route by " + KeyHash.ORDERED_PREFIX + ", not " + hash);
        }
        return KeyRanges.of(splits);
      }
    } catch (IllegalArgumentException e) {
      throw new IOException("not a valid scheme: " + e.getMessage(), e);
    }
    throw new IOException("unknown scheme kind " + kind);
  }
}
