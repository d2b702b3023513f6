package io.partkit.backend.hazelcast;

import io.partkit.spi.hash.KeyHash;

/**
 * The object -> bytes encoding partkit uses for keys handed over by Hazelcast, following
 * {@link KeyHash}'s persisted encodings: {@code String} as UTF-8, {@code Long} and
 * {@code Integer} as the 8 big-endian bytes of the (widened) {@code long}, {@code byte[]} as is.
 * Anything else has no stable encoding here ({@code hashCode()} is not one) and is rejected.
 */
final class PartkitKeys {

  private PartkitKeys() {}

  static long hash(KeyHash keyHash, Object key) {
    if (key instanceof String s) {
      return keyHash.hash(s);
    } else if (key instanceof Long l) {
      return keyHash.hashLong(l);
    } else if (key instanceof Integer i) {
      return keyHash.hashLong(i);
    } else if (key instanceof byte[] bytes) {
      return keyHash.hash(bytes);
    }
    throw new IllegalArgumentException("partkit routes String, Long, Integer and byte[] keys; "
        + "got " + (key == null ? "null" : key.getClass().getName())
        + " (encode the key, or its routing part, as one of those)");
  }
}
