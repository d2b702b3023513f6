package io.partkit.coordinator;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An optional ability of a {@link MetadataStore}: small named values, each replaced only by a
 * compare-and-set on its version. It is for state that must outlive the process that writes it
 * and be taken over by another (a control's durable state, kept where a standby that wins the
 * {@linkplain MetadataStore#campaign election} finds it). A store that has the ability implements
 * this interface as well; callers ask with {@code store instanceof VersionedValues}. Both built-in
 * stores have it.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Linearizable.</b> {@link #get} and {@link #compareAndSet} act atomically at one point
 *       between call and return, for every client of the same store, and in the same order as the
 *       store's other operations.
 *   <li><b>No lost update.</b> A value is replaced only when its version is still the one the
 *       writer read: of writers racing from one version exactly one succeeds, and the others
 *       learn they lost (an empty result) and can read again.
 *   <li><b>Versions only grow.</b> A version is positive and every change of a name gives it a
 *       larger version than any it had before, also across a restart of the store (a reopened
 *       file, an etcd leader change). Versions of one name are not consecutive: they come from
 *       the store's change counter (the embedded store's revision, etcd's mod revision), so they
 *       also order a name's changes against the store's other changes.
 *   <li><b>Written once.</b> A compare-and-set whose outcome the store could not see (on etcd, a
 *       connection broken after the request was sent) is not blindly sent again: the store reads
 *       the name back and reports its own write if it finds it (the same bytes under a version
 *       above the expected one). Another writer storing the very same bytes in that window is
 *       taken for this one.
 * </ul>
 *
 * <h2>Limits</h2>
 * <ul>
 *   <li>Names: 1 to 128 characters of {@code [A-Za-z0-9._-]}.
 *   <li>Values: at most {@link #MAX_VALUE_BYTES} (1 MiB); the empty value is a value.
 *   <li>A name, once written, is never removed, and there is no listing and no watch: a caller
 *       knows the names it uses.
 *   <li>Each value is written whole on every change, and the persistent embedded store rewrites
 *       (and fsyncs) its whole file on every change of anything: the ability suits a few small
 *       values such as a control's state, not bulk data.
 * </ul>
 *
 * <p>Implementations are thread-safe. Failures to reach a remote store surface as
 * {@link MetadataStoreException} with a message naming the store and what failed.
 */
public interface VersionedValues {

  /** Version passed to {@link #compareAndSet} when the name holds no value yet. */
  long ABSENT = 0;

  /** The largest value: 1 MiB (etcd refuses requests over 1.5 MiB by default). */
  int MAX_VALUE_BYTES = 1 << 20;

  /**
   * A value and its version: positive, and it grows with every change of that name. The bytes
   * are copied in and out, so neither the array passed in nor one returned by {@link #value()}
   * can change the record; {@code equals}, {@code hashCode} and {@code toString} go by content.
   *
   * @param value the stored bytes
   * @param version the version under which they are stored
   */
  record Versioned(byte[] value, long version) {

    /**
     * @throws IllegalArgumentException if {@code version} is not positive
     */
    public Versioned {
      requireNonNull(value, "value");
      if (version <= ABSENT) {
        throw new IllegalArgumentException("a stored value's version must be positive: "
            + version);
      }
      value = value.clone();
    }

    /** A copy of the stored bytes. */
    @Override
    public byte[] value() {
      return value.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Versioned other && version == other.version
          && Arrays.equals(value, other.value);
    }

    @Override
    public int hashCode() {
      return 31 * Long.hashCode(version) + Arrays.hashCode(value);
    }

    /**
     * The version, the size and the first 32 bytes in hex, e.g.
     * {@code Versioned[version=7, 3 bytes 0a0b0c]}.
     */
    @Override
    public String toString() {
      int shown = Math.min(value.length, 32);
      return "Versioned[version=" + version + ", " + value.length + " bytes "
          + HexFormat.of().formatHex(value, 0, shown) + (shown < value.length ? "...]" : "]");
    }
  }

  /**
   * The value stored under {@code name} with its version, if any; a linearizable read (it sees
   * every compare-and-set that returned before it was called, from any client).
   *
   * @throws IllegalArgumentException for a bad name (see {@link #compareAndSet})
   */
  Optional<Versioned> get(String name);

  /**
   * Stores {@code value} under {@code name} when the name's version is still
   * {@code expectedVersion} ({@link #ABSENT}: the name holds no value yet).
   *
   * @param expectedVersion {@link #ABSENT}, or the version of the value the caller read
   * @return the new version (above {@code expectedVersion}) when stored; empty when the stored
   *     version was another (someone else wrote first: read again and decide again)
   * @throws IllegalArgumentException for a bad name (the message quotes it and says what is
   *     allowed: non-empty, at most 128 of {@code [A-Za-z0-9._-]}), a value
   *     over {@link #MAX_VALUE_BYTES} (the message gives its size and the limit), or a negative
   *     {@code expectedVersion} (no version is negative)
   * @throws MetadataStoreException when the store could not be reached or could not tell within
   *     its timeout: the value may or may not have been stored, {@link #get} tells
   */
  OptionalLong compareAndSet(String name, long expectedVersion, byte[] value);
}
