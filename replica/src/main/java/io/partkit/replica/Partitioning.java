package io.partkit.replica;

/**
 * Which partition a key belongs to. A partition numbered {@code id} at modulus {@code m} holds the
 * keys whose hash is {@code id} modulo {@code m}. A table starts with partitions {@code 0..n-1} at
 * modulus {@code n}; splitting partition {@code p} at modulus {@code m} doubles the modulus: {@code
 * p} keeps the keys whose hash is {@code p} modulo {@code 2m} and the new partition {@code p + m}
 * takes the others (one more bit of the hash decides). So a partition's number and modulus name
 * its keys with no other table, and every node divides its copy the same way.
 */
public final class Partitioning {

  private Partitioning() {}

  /**
   * The key's hash: an eight-byte key hashes as its value mixed, as the clients always routed
   * numeric keys; any other key as FNV-1a of its bytes, mixed the same way.
   */
  public static long hash(Bytes key) {
    long v;
    if (key.length() == 8) {
      v = key.toLong();
    } else {
      v = 0xcbf29ce484222325L;
      for (byte b : key.toArray()) {
        v = (v ^ (b & 0xff)) * 0x100000001b3L;
      }
    }
    long h = v * 0x9E3779B97F4A7C15L;
    return h ^ h >>> 29;
  }

  /**
   * Whether partition {@code id} at {@code modulus} holds {@code key}; a modulus of 0 (a driver
   * that numbers nothing) holds every key it is sent.
   */
  public static boolean owns(int id, long modulus, Bytes key) {
    return modulus == 0 || Math.floorMod(hash(key), modulus) == id;
  }
}
