package io.partkit.replica;

import java.util.Arrays;
import java.util.HexFormat;

/** An immutable byte string: a key or a value. Equal by content, ordered unsigned. */
public final class Bytes implements Comparable<Bytes> {

  private final byte[] bytes;
  private final int hash;

  private Bytes(byte[] bytes) {
    this.bytes = bytes;
    this.hash = Arrays.hashCode(bytes);
  }

  /** A copy of {@code bytes}. */
  public static Bytes of(byte[] bytes) {
    return new Bytes(bytes.clone());
  }

  /** The eight big-endian bytes of {@code value}. */
  public static Bytes ofLong(long value) {
    byte[] b = new byte[8];
    for (int i = 7; i >= 0; i--) {
      b[i] = (byte) value;
      value >>>= 8;
    }
    return new Bytes(b);
  }

  /** The value of eight big-endian bytes. */
  public long toLong() {
    if (bytes.length != 8) {
      throw new IllegalStateException("not an 8-byte value: " + this);
    }
    long v = 0;
    for (byte b : bytes) {
      v = v << 8 | (b & 0xff);
    }
    return v;
  }

  /** A copy of the bytes. */
  public byte[] toArray() {
    return bytes.clone();
  }

  public int length() {
    return bytes.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Bytes other && hash == other.hash && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public int compareTo(Bytes o) {
    return Arrays.compareUnsigned(bytes, o.bytes);
  }

  @Override
  public String toString() {
    return HexFormat.of().formatHex(bytes);
  }
}
