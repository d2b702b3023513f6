package io.partkit.verification.history;

/**
 * Boxes for the integers a history repeats (processes, keys, values): a direct-mapped table, so
 * that the millionth {@code :process 123000005} is not the millionth new Long. Values are equal
 * either way; only the memory of a long history differs (16 bytes per repeat).
 */
final class LongBoxes {
  private final Long[] table = new Long[1 << 14];

  Long box(long v) {
    if (v >= -128 && v <= 127) {
      return v; // Long.valueOf's own cache
    }
    int i = (int) (v ^ (v >>> 29) ^ (v >>> 12)) & (table.length - 1);
    Long b = table[i];
    if (b != null && b == v) {
      return b;
    }
    b = v;
    table[i] = b;
    return b;
  }
}
