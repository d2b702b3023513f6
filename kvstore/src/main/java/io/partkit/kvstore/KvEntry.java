package io.partkit.kvstore;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * One key and its value, as a range scan returns them.
 *
 * <p>Equality compares the bytes (a record would compare the array references), so that tests
 * and callers can compare scanned entries with expected ones directly. The arrays are not
 * copied: the scan made them for the caller alone.
 *
 * @param key the key
 * @param value its value when the owning partition answered
 */
public record KvEntry(byte[] key, byte[] value) {

  /** Canonical constructor. */
  public KvEntry {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KvEntry e && Arrays.equals(key, e.key) && Arrays.equals(value, e.value);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(key) + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "KvEntry{" + HexFormat.of().formatHex(key) + "=" + value.length + " bytes}";
  }
}
