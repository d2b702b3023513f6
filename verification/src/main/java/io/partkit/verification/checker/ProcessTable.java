package io.partkit.verification.checker;

/**
 * Open invocations by process, as positions in a list of events: open addressing on the
 * process' hash, no boxing of positions (a HashMap here was a tenth of the time of checking a
 * small history). A process stays in the table once seen; its next invocation reuses its slot.
 */
final class ProcessTable {
  private Object[] keys = new Object[16];
  private int[] values = new int[16];
  private int size;

  /** Records the process' open invocation; returns the one it replaces, or -1 when it had none open. */
  int put(Object process, int at) {
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

  private static int slot(Object process, int mask) {
    int h = process.hashCode() * 0x9E3779B9;
    return (h ^ (h >>> 16)) & mask;
  }
}
