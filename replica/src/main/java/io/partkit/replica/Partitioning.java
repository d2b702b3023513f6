package io.partkit.replica;

import io.partkit.spi.HashSlots;
import io.partkit.spi.hash.KeyHash;

/**
 * The core's hash halves ({@link Numbering.Hashed}): which partition a key belongs to. A table
 * starts with partitions {@code 0..n-1}, its <em>base</em> {@code n}, numbered exactly as
 * partkit's {@link HashSlots}{@code (n)} over {@link KeyHash#MURMUR3_128} (the {@code fixed}
 * strategy's scheme), so a coordinator's table of that scheme names the keys each of the core's
 * partitions holds.
 *
 * <p>Splitting partition {@code p} at modulus {@code m} (first {@code m = n}) doubles the modulus:
 * {@code p} keeps part of its keys and the new partition {@code p + m} takes the others. Which
 * ones is decided by the bits of the key's position inside its slot, highest first: a key's
 * <em>number</em> is its slot {@code s} plus {@code n} times those 32 bits reversed, and
 * partition {@code id} at modulus {@code m} holds the keys whose number is {@code id} modulo
 * {@code m}. So a split cuts a partition's range of the hash line in two halves, and a
 * partition's number, modulus and the table's base name its keys with no other table: every node
 * divides its copy the same way.
 */
public final class Partitioning {

  private Partitioning() {}

  /**
   * The key's hash: {@link KeyHash#MURMUR3_128} of its bytes (an eight-byte key as the {@code
   * long} it holds big-endian, which hashes the same), as {@link HashSlots} routes.
   */
  public static long hash(Bytes key) {
    return key.length() == Long.BYTES ? KeyHash.MURMUR3_128.hashLong(key.toLong())
        : KeyHash.MURMUR3_128.hash(key.toArray());
  }

  /**
   * The key's number in a table of base {@code base}: its slot of {@code HashSlots(base)}, plus
   * {@code base} times the 32 bits below the slot, reversed (see the class comment).
   */
  static long number(long hash, int base) {
    long position = (hash ^ Long.MIN_VALUE) >>> 32;
    long scaled = position * base;
    long slot = scaled >>> 32;
    long below = Integer.reverse((int) scaled) & 0xffffffffL;
    return slot + base * below;
  }
}
