package io.partkit.verification.history;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Short ASCII names (keywords, a JSON operation's type and function) by their bytes, so that each
 * occurrence of {@code :invoke} is one lookup instead of a new String: a history names a few
 * dozen of them millions of times. The names are interned (the checker compares functions by
 * identity first); past {@link #MAX} distinct names new ones are neither kept nor interned.
 */
final class NameTable {
  private static final int MAX = 1 << 15;

  private byte[][] keys = new byte[256][];
  private String[] values = new String[256];
  private int size;

  /** Names of up to 7 bytes, packed with their length into a long: one compare per lookup. */
  private final long[] packedKeys = new long[512];
  private final String[] packedValues = new String[512];

  String get(byte[] b, int from, int len) {
    if (len <= 7) {
      long key = len;
      for (int i = 0; i < len; i++) {
        key = (key << 8) | (b[from + i] & 0xFF);
      }
      int slot = (int) (key ^ (key >>> 17) ^ (key >>> 31)) & (packedKeys.length - 1);
      if (packedKeys[slot] == key) {
        return packedValues[slot];
      }
      String s = slow(b, from, len);
      if (packedValues[slot] == null) {
        packedKeys[slot] = key;
        packedValues[slot] = s;
      }
      return s;
    }
    return slow(b, from, len);
  }

  private String slow(byte[] b, int from, int len) {
    int h = hash(b, from, len);
    int mask = keys.length - 1;
    int i = h & mask;
    while (true) {
      byte[] k = keys[i];
      if (k == null) {
        break;
      }
      if (k.length == len && Arrays.equals(k, 0, len, b, from, from + len)) {
        return values[i];
      }
      i = (i + 1) & mask;
    }
    String s = new String(b, from, len, StandardCharsets.ISO_8859_1);
    if (size >= MAX) {
      return s; // ever new names: not worth keeping
    }
    s = s.intern();
    if (2 * (size + 1) > keys.length) {
      grow();
      mask = keys.length - 1;
      i = h & mask;
      while (keys[i] != null) {
        i = (i + 1) & mask;
      }
    }
    keys[i] = Arrays.copyOfRange(b, from, from + len);
    values[i] = s;
    size++;
    return s;
  }

  private static int hash(byte[] b, int from, int len) {
    int h = 1;
    for (int i = 0; i < len; i++) {
      h = 31 * h + b[from + i];
    }
    return h ^ (h >>> 16);
  }

  private void grow() {
    byte[][] oldKeys = keys;
    String[] oldValues = values;
    keys = new byte[oldKeys.length * 2][];
    values = new String[oldKeys.length * 2];
    int mask = keys.length - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      byte[] k = oldKeys[j];
      if (k != null) {
        int i = hash(k, 0, k.length) & mask;
        while (keys[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = k;
        values[i] = oldValues[j];
      }
    }
  }
}
