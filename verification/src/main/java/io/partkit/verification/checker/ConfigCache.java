package io.partkit.verification.checker;

import java.util.Objects;

/**
 * The set of configurations (linearized operations as a bitset, model state) already explored:
 * an open-addressing hash table keyed by a precomputed 64-bit hash. The bitsets are stored
 * inline in one long array (no object per entry, no pointer to chase), so a lookup allocates
 * nothing and a miss usually compares only the hash.
 */
final class ConfigCache {
  private final int words;
  private long[] hashes;
  private long[] sets; // entry i occupies words [i * words, (i + 1) * words)
  private Object[] states;
  private boolean[] used;
  private int size;
  private int mask;

  ConfigCache(int words) {
    this.words = words;
    allocate(1 << 10);
  }

  private void allocate(int capacity) {
    hashes = new long[capacity];
    sets = new long[capacity * words];
    states = new Object[capacity];
    used = new boolean[capacity];
    mask = capacity - 1;
  }

  /** Adds the configuration; false if it was already there. */
  boolean add(long[] bits, Object state, long hash) {
    int i = slot(hash);
    while (used[i]) {
      if (hashes[i] == hash && sameBits(i, bits) && Objects.equals(states[i], state)) {
        return false;
      }
      i = (i + 1) & mask;
    }
    used[i] = true;
    hashes[i] = hash;
    System.arraycopy(bits, 0, sets, i * words, words);
    states[i] = state;
    if (++size * 2 > hashes.length) {
      grow();
    }
    return true;
  }

  int size() {
    return size;
  }

  private int slot(long hash) {
    return (int) (hash ^ (hash >>> 32)) & mask;
  }

  private boolean sameBits(int i, long[] bits) {
    int base = i * words;
    for (int w = 0; w < words; w++) {
      if (sets[base + w] != bits[w]) {
        return false;
      }
    }
    return true;
  }

  private void grow() {
    long[] oldHashes = hashes;
    long[] oldSets = sets;
    Object[] oldStates = states;
    boolean[] oldUsed = used;
    allocate(oldHashes.length * 2);
    for (int j = 0; j < oldHashes.length; j++) {
      if (oldUsed[j]) {
        int i = slot(oldHashes[j]);
        while (used[i]) {
          i = (i + 1) & mask;
        }
        used[i] = true;
        hashes[i] = oldHashes[j];
        System.arraycopy(oldSets, j * words, sets, i * words, words);
        states[i] = oldStates[j];
      }
    }
  }
}
