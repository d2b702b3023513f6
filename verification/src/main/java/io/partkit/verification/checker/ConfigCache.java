package io.partkit.verification.checker;

import java.util.Arrays;
import java.util.Objects;

/**
 * The set of configurations (linearized operations as a bitset, model state) already explored:
 * an open-addressing hash table keyed by a precomputed 64-bit hash, so a lookup allocates
 * nothing and a miss compares no bitsets. Only an insertion copies the bitset.
 */
final class ConfigCache {
  private long[] hashes;
  private long[][] sets;
  private Object[] states;
  private int size;
  private int mask;

  ConfigCache(int words) {
    int capacity = 1 << 10;
    hashes = new long[capacity];
    sets = new long[capacity][];
    states = new Object[capacity];
    mask = capacity - 1;
  }

  /** Adds the configuration; false if it was already there. */
  boolean add(long[] bits, Object state, long hash) {
    int i = (int) (hash ^ (hash >>> 32)) & mask;
    while (sets[i] != null) {
      if (hashes[i] == hash && Arrays.equals(sets[i], bits) && Objects.equals(states[i], state)) {
        return false;
      }
      i = (i + 1) & mask;
    }
    hashes[i] = hash;
    sets[i] = bits.clone();
    states[i] = state;
    if (++size * 2 > hashes.length) {
      grow();
    }
    return true;
  }

  int size() {
    return size;
  }

  private void grow() {
    long[] oldHashes = hashes;
    long[][] oldSets = sets;
    Object[] oldStates = states;
    int capacity = oldHashes.length * 2;
    hashes = new long[capacity];
    sets = new long[capacity][];
    states = new Object[capacity];
    mask = capacity - 1;
    for (int j = 0; j < oldHashes.length; j++) {
      if (oldSets[j] != null) {
        int i = (int) (oldHashes[j] ^ (oldHashes[j] >>> 32)) & mask;
        while (sets[i] != null) {
          i = (i + 1) & mask;
        }
        hashes[i] = oldHashes[j];
        sets[i] = oldSets[j];
        states[i] = oldStates[j];
      }
    }
  }
}
