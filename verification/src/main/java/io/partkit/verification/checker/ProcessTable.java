package io.partkit.verification.checker;

/**
 * Open invocations by process, as positions in a list of events: open addressing on the
 * process' hash, no boxing of positions (a HashMap here was a tenth of the time of checking a
 * small history). A process stays in the table once seen; its next invocation reuses its slot.
 * Client processes are Longs, mostly small and non-negative (Jepsen numbers them from 0 and
 * replaces a crashed process p by p + concurrency): those below 2^16 are looked up by index in an
 * array grown to the largest seen, without hashing or equals.
 */
final class ProcessTable {
  private static final int DIRECT_LIMIT = 1 << 16;
  private int[] direct = newDirect(64);

  private Object[] keys = new Object[16];
  private int[] values = new int[16];
  private int size;

  /**
   * Records the process' open invocation; returns the one it replaces, or -1 when it had none open.
   */
  int put(Object process, int at) {
    int d = directIndex(process);
    if (d >= 0) {
      return putDirect(d, at);
    }
    if (process instanceof Long) {
      return putLong((Long) process, at);
    }
    int mask = keys.length - 1;
    int i = slot(process, mask);
    while (keys[i] != null && !keys[i].equals(process)) {
      i = (i + 1) & mask;
    }
    if (keys[i] == null) {
      keys[i] = process;
      values[i] = at;
      if (++size * 2 > keys.length) {
        grow();
      }
      return -1;
    }
    int previous = values[i];
    values[i] = at;
    return previous;
  }

  /** The open invocation's position, removed, or -1 when there is none. */
  int remove(Object process) {
    int d = directIndex(process);
    if (d >= 0) {
      if (d >= direct.length) {
        return -1;
      }
      int at = direct[d];
      direct[d] = -1;
      return at;
    }
    if (process instanceof Long) {
      int i = findLong((Long) process);
      if (i < 0) {
        return -1;
      }
      int at = longValues[i];
      longValues[i] = -1;
      return at;
    }
    int mask = keys.length - 1;
    int i = slot(process, mask);
    while (keys[i] != null) {
      if (keys[i].equals(process)) {
        int at = values[i];
        values[i] = -1; // the process stays as a key: its next invocation reuses the slot
        return at;
      }
      i = (i + 1) & mask;
    }
    return -1;
  }

  /** {@link #put(Object, int)} for the Long process {@code p}, without boxing. */
  int put(long p, int at) {
    if (p >= 0 && p < DIRECT_LIMIT) {
      return putDirect((int) p, at);
    }
    return putLong(p, at);
  }

  /** The small non-negative process {@code d}: an array slot, grown on demand. */
  private int putDirect(int d, int at) {
    if (d >= direct.length) {
      int[] grown = newDirect(Math.max(d + 1, direct.length * 2));
      System.arraycopy(direct, 0, grown, 0, direct.length);
      direct = grown;
    }
    int previous = direct[d];
    direct[d] = at;
    return previous;
  }

  /** {@link #remove(Object)} for the Long process {@code p}, without boxing. */
  int remove(long p) {
    if (p >= 0 && p < DIRECT_LIMIT) {
      int d = (int) p;
      if (d >= direct.length) {
        return -1;
      }
      int at = direct[d];
      direct[d] = -1;
      return at;
    }
    int i = findLong(p);
    if (i < 0) {
      return -1;
    }
    int at = longValues[i];
    longValues[i] = -1;
    return at;
  }

  /** The process' open invocation, left in place, or -1 when there is none. */
  int get(Object process) {
    int d = directIndex(process);
    if (d >= 0) {
      return d < direct.length ? direct[d] : -1;
    }
    if (process instanceof Long) {
      int i = findLong((Long) process);
      return i < 0 ? -1 : longValues[i];
    }
    int mask = keys.length - 1;
    int i = slot(process, mask);
    while (keys[i] != null) {
      if (keys[i].equals(process)) {
        return values[i];
      }
      i = (i + 1) & mask;
    }
    return -1;
  }

  // Long processes outside the direct range (e.g. Jepsen's p + k * concurrency after many
  // crashes, or keys of large numbers): their values in a long array, so a lookup compares
  // numbers instead of following a pointer to each stored Long.
  private long[] longKeys = new long[16];
  private boolean[] longUsed = new boolean[16];
  private int[] longValues = new int[16];
  private int longSize;

  private static int longSlot(long p, int mask) {
    // the high half of the product depends on every bit of p: processes k * 1,000,000 + j all
    // share their low bits, which clustered them with a multiply that kept the low half
    return (int) ((p * 0x9E3779B97F4A7C15L) >>> 32) & mask;
  }

  private int findLong(long p) {
    int mask = longKeys.length - 1;
    int i = longSlot(p, mask);
    while (longUsed[i]) {
      if (longKeys[i] == p) {
        return i;
      }
      i = (i + 1) & mask;
    }
    return -1;
  }

  private int putLong(long p, int at) {
    int mask = longKeys.length - 1;
    int i = longSlot(p, mask);
    while (longUsed[i]) {
      if (longKeys[i] == p) {
        int previous = longValues[i];
        longValues[i] = at;
        return previous;
      }
      i = (i + 1) & mask;
    }
    longUsed[i] = true;
    longKeys[i] = p;
    longValues[i] = at;
    if (++longSize * 2 > longKeys.length) {
      long[] oldKeys = longKeys;
      boolean[] oldUsed = longUsed;
      int[] oldValues = longValues;
      longKeys = new long[oldKeys.length * 2];
      longUsed = new boolean[oldKeys.length * 2];
      longValues = new int[oldKeys.length * 2];
      int m = longKeys.length - 1;
      for (int j = 0; j < oldKeys.length; j++) {
        if (oldUsed[j]) {
          int k = longSlot(oldKeys[j], m);
          while (longUsed[k]) {
            k = (k + 1) & m;
          }
          longUsed[k] = true;
          longKeys[k] = oldKeys[j];
          longValues[k] = oldValues[j];
        }
      }
    }
    return -1;
  }

  private void grow() {
    Object[] oldKeys = keys;
    int[] oldValues = values;
    keys = new Object[oldKeys.length * 2];
    values = new int[oldKeys.length * 2];
    int mask = keys.length - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldKeys[j] != null) {
        int i = slot(oldKeys[j], mask);
        while (keys[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = oldKeys[j];
        values[i] = oldValues[j];
      }
    }
  }

  /** The array index for a Long process in [0, 2^16), else -1. */
  private static int directIndex(Object process) {
    if (process instanceof Long) {
      long p = (Long) process;
      if (p >= 0 && p < DIRECT_LIMIT) {
        return (int) p;
      }
    }
    return -1;
  }

  private static int[] newDirect(int size) {
    int[] a = new int[size];
    java.util.Arrays.fill(a, -1);
    return a;
  }

  private static int slot(Object process, int mask) {
    int h = process.hashCode() * 0x9E3779B9;
    return (h ^ (h >>> 16)) & mask;
  }
}
