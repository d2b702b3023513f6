package io.partkit.backend.hazelcast;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Hazelcast 5.x's key -> partition mapping, reproduced exactly, without a member.
 *
 * <h2>The algorithm (Hazelcast 5.7 {@code HeapData.hashCode}, {@code HashUtil.hashToIndex})</h2>
 * Hazelcast serializes the key, hashes the serialized bytes from offset 8 with MurmurHash3
 * x86_32 (seed {@code 0x01000193}) and takes {@code abs(hash) % partitionCount}, with
 * {@code Integer.MIN_VALUE} mapped to 0. The serialized form is a header of 8 bytes (a 4-byte
 * partition hash, 0 when none is set, and the 4-byte type id) followed by the payload, all
 * big-endian (Hazelcast's default byte order). Only the payload is hashed:
 * <table>
 *   <caption>Payload per key type</caption>
 *   <tr><th>key</th><th>type id</th><th>payload hashed</th></tr>
 *   <tr><td>{@code Integer}</td><td>-7</td><td>4 bytes, big-endian</td></tr>
 *   <tr><td>{@code Long}</td><td>-8</td><td>8 bytes, big-endian</td></tr>
 *   <tr><td>{@code String}</td><td>-11</td><td>4-byte big-endian length of the UTF-8 bytes, then
 *       the UTF-8 bytes</td></tr>
 *   <tr><td>{@code byte[]}</td><td>-12</td><td>4-byte big-endian length, then the bytes</td></tr>
 * </table>
 * Other types (Hazelcast's other built-ins, {@code IdentifiedDataSerializable}, Compact, Java
 * serialization) have other payloads and are rejected rather than guessed. A key that is
 * {@code PartitionAware}, or a map with a {@code PartitioningStrategy}, is partitioned by its
 * partition key instead: pass that key here.
 *
 * <p>Known values with 271 partitions: {@code "key"} -> 80, {@code "user-42"} -> 11,
 * {@code Integer 1} -> 31, {@code Long 1} -> 110.
 *
 * <p>Also the inverse: {@link #partitionKeyFor(int)} is a small {@code Integer} that Hazelcast
 * maps to a chosen partition, which is how partkit chooses Hazelcast partition ids exactly (see
 * {@link PartkitPartitioningStrategy}).
 *
 * <p>Immutable and thread-safe.
 */
public final class HazelcastPlacement {

  /** Hazelcast's default partition count (property {@code hazelcast.partition.count}). */
  public static final int DEFAULT_PARTITION_COUNT = 271;

  /** Most partitions supported here (the inverse table holds one key per partition). */
  public static final int MAX_PARTITION_COUNT = 1 << 16;

  /** Hazelcast's MurmurHash3 seed ({@code HashUtil.DEFAULT_MURMUR_SEED}). */
  public static final int SEED = 0x01000193;

  private static final HazelcastPlacement DEFAULT = new HazelcastPlacement(DEFAULT_PARTITION_COUNT);

  private final int partitionCount;
  /** For each partition, the smallest non-negative int that Hazelcast maps to it. */
  private final int[] partitionKeys;

  private HazelcastPlacement(int partitionCount) {
    this.partitionCount = partitionCount;
    int[] keys = new int[partitionCount];
    java.util.Arrays.fill(keys, -1);
    int missing = partitionCount;
    byte[] buffer = new byte[4];
    // about P ln P candidates (coupon collector): ~1,500 for 271, ~730,000 for 65,536
    for (int candidate = 0; missing > 0; candidate++) {
      ByteBuffer.wrap(buffer).putInt(candidate);
      int p = partitionOfHash(Murmur3x86.hash32(buffer, 0, 4, SEED));
      if (keys[p] < 0) {
        keys[p] = candidate;
        missing--;
      }
    }
    this.partitionKeys = keys;
  }

  /** Hazelcast's defaults: 271 partitions. */
  public static HazelcastPlacement defaults() {
    return DEFAULT;
  }

  /**
   * Hazelcast's mapping for a cluster with {@code partitionCount} partitions.
   *
   * @throws IllegalArgumentException if partitionCount is outside 1..{@value #MAX_PARTITION_COUNT}
   */
  public static HazelcastPlacement of(int partitionCount) {
    if (partitionCount < 1 || partitionCount > MAX_PARTITION_COUNT) {
      throw new IllegalArgumentException(
          "partition count must be in 1.." + MAX_PARTITION_COUNT + ": " + partitionCount);
    }
    return partitionCount == DEFAULT_PARTITION_COUNT
        ? DEFAULT
        : new HazelcastPlacement(partitionCount);
  }

  /** The partition count. */
  public int partitionCount() {
    return partitionCount;
  }

  /**
   * Hazelcast's partition id of a key.
   *
   * @throws IllegalArgumentException if the key is null or not a String, Integer, Long or byte[]
   */
  public int partition(Object key) {
    return partitionOfHash(hash(key));
  }

  /** Hazelcast's {@code hashToIndex}: {@code abs(hash) % partitionCount}, MIN_VALUE -> 0. */
  public int partitionOfHash(int hash) {
    return hash == Integer.MIN_VALUE ? 0 : Math.abs(hash) % partitionCount;
  }

  /**
   * Hazelcast's partition hash of a key: MurmurHash3 x86_32 of {@link #payload(Object)}.
   *
   * @throws IllegalArgumentException if the key is null or not a String, Integer, Long or byte[]
   */
  public static int hash(Object key) {
    byte[] payload = payload(key);
    return Murmur3x86.hash32(payload, 0, payload.length, SEED);
  }

  /**
   * The serialized payload Hazelcast hashes (its serialized form from offset 8), per the table
   * in the class comment.
   *
   * @throws IllegalArgumentException if the key is null or not a String, Integer, Long or byte[]
   */
  public static byte[] payload(Object key) {
    if (key instanceof String s) {
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      return ByteBuffer.allocate(4 + utf8.length).putInt(utf8.length).put(utf8).array();
    } else if (key instanceof Integer i) {
      return ByteBuffer.allocate(4).putInt(i).array();
    } else if (key instanceof Long l) {
      return ByteBuffer.allocate(8).putLong(l).array();
    } else if (key instanceof byte[] bytes) {
      return ByteBuffer.allocate(4 + bytes.length).putInt(bytes.length).put(bytes).array();
    }
    throw new IllegalArgumentException("key must be a String, Integer, Long or byte[] "
        + "(Hazelcast's payload for other types is not modeled): "
        + (key == null ? "null" : key.getClass().getName()));
  }

  /**
   * The smallest non-negative {@code Integer} that Hazelcast maps to {@code partitionId}: a
   * partition key that pins data to that partition.
   *
   * @throws IndexOutOfBoundsException if partitionId is outside 0..partitionCount-1
   */
  public Integer partitionKeyFor(int partitionId) {
    if (partitionId < 0 || partitionId >= partitionCount) {
      throw new IndexOutOfBoundsException(
          "partition id must be in 0.." + (partitionCount - 1) + ": " + partitionId);
    }
    return partitionKeys[partitionId];
  }

  @Override
  public String toString() {
    return "HazelcastPlacement{partitionCount=" + partitionCount + "}";
  }
}
