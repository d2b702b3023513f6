package io.partkit.harness.system;

import java.util.List;
import java.util.Objects;

/**
 * One client operation on a register named by {@code key}: {@code read} (value null),
 * {@code write} (value a {@link Long}) or {@code cas} (value {@code [expected new]}, two Longs).
 * These are the operations of Knossos' {@code cas-register}, one register per key as in
 * Jepsen's {@code independent}.
 *
 * @param f read, write or cas
 * @param key the register
 * @param value the argument
 */
public record Operation(String f, long key, Object value) {

  public static final String READ = "read";
  public static final String WRITE = "write";
  public static final String CAS = "cas";

  public Operation {
    Objects.requireNonNull(f, "f");
    switch (f) {
      case READ -> {
        if (value != null) {
          throw new IllegalArgumentException("a read has no argument: " + value);
        }
      }
      case WRITE -> {
        if (!(value instanceof Long)) {
          throw new IllegalArgumentException("a write needs a Long: " + value);
        }
      }
      case CAS -> {
        if (!(value instanceof List<?> l) || l.size() != 2 || !(l.get(1) instanceof Long)) {
          throw new IllegalArgumentException(
              "a cas needs [expected new] with a Long new: " + value);
        }
      }
      default -> throw new IllegalArgumentException("f must be read, write or cas: " + f);
    }
  }

  /** The value a cas expects (may be null: the key is absent). */
  public Long casExpected() {
    return (Long) ((List<?>) value).get(0);
  }

  /** The value a cas sets. */
  public Long casNew() {
    return (Long) ((List<?>) value).get(1);
  }
}
