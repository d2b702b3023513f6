package io.partkit.verification.checker;

import java.util.Objects;

/**
 * The set of configurations (linearized operations, model state) already explored: an
 * open-addressing hash table keyed by a precomputed 64-bit hash. The linearized sets are stored
 * in their {@link FrontierSet} encoding, appended to one long array (no object per entry, no
 * pointer to chase): a configuration costs its encoding (three words for a sequential history)
 * plus two table slots, so the cache grows with the number of configurations times the
 * concurrency, not times the history's length. A lookup allocates nothing and a miss usually
 * compares only the hash.
 */
final class ConfigCache {
  private long[] hashes;
  private int[] at; // per slot: 0 when empty, else 1 + the arena index of the entry's length word
  private Object[] states;
  private long[] arena;
  private int top;
  private int size;
  private int mask;

  /**
   * Sized for about as many configurations as {@code operations} (operations alone at the head
   * of the events are taken without the cache, see WglSearch, so mostly-sequential histories
   * cache fewer); when half full, the table grows at once to four configurations per operation
   * (at most 2^16), then doubles. Four: a key of the keyed scale histories (about 1,000
   * operations, concurrency 10) takes about 4,000 steps, at most one new configuration each, and
   * a table that only doubled was copied twice (7% of the keyed verdict's samples in a JFR
   * profile). Not four from the start: the small histories (100-400 operations, mostly one
   * after another) rarely fill even the first table, and zeroing a table four times larger
   * showed in their time.
   */
  ConfigCache(int operations) {
    int expected = Math.min(operations + 1, 1 << 16);
    allocate(Math.max(64, Integer.highestOneBit(expected) * 2));
    arena = new long[Math.max(64, 2 * expected)];
    firstGrowth = firstGrowth(operations);
  }

  private int firstGrowth; // the capacity of the first growth

  private static int firstGrowth(int operations) {
    int four = (int) Math.min(4L * (operations + 1), 1 << 16);
    return Math.max(64, Integer.highestOneBit(four) * 2);
  }

  /**
   * Empties this cache for another search of {@code operations} operations, as if it were
   * {@code new ConfigCache(operations)}, keeping its arrays when their size is one the new
   * search would reach anyway (at least the first table, at most four times its first growth;
   * the arena at most eight words per configuration of that): a checker that searches many
   * keys on one thread allocates its tables once instead of once per key (the 1,000 keys of the
   * long crashed history allocated about 180 MB of them). Only the size of the arrays
   * differs from a new cache, never what it holds.
   */
  ConfigCache reset(int operations) {
    int expected = Math.min(operations + 1, 1 << 16);
    int first = Math.max(64, Integer.highestOneBit(expected) * 2);
    firstGrowth = firstGrowth(operations);
    if (hashes.length < first || hashes.length > 4 * firstGrowth) {
      allocate(first);
    } else {
      java.util.Arrays.fill(at, 0); // empty slots; their hashes are never read
      java.util.Arrays.fill(states, null); // nor kept alive
    }
    if (arena.length < Math.max(64, 2 * expected) || arena.length > 8L * 4 * firstGrowth) {
      arena = new long[Math.max(64, 2 * expected)];
    }
    top = 0;
    size = 0;
    return this;
  }

  /**
   * Small enough to be kept for another search (a few megabytes at most): a long key's cache
   * is let go, not held for the rest of the check.
   */
  boolean worthKeeping() {
    return hashes.length <= 1 << 18 && arena.length <= 1 << 20;
  }

  /** Slots in the table (for tests). */
  int capacity() {
    return hashes.length;
  }

  private void allocate(int capacity) {
    hashes = new long[capacity];
    at = new int[capacity];
    states = new Object[capacity];
    mask = capacity - 1;
  }

  /** Adds the configuration; false if it was already there. */
  boolean add(FrontierSet set, Object state, long hash) {
    int i = slot(hash);
    int a;
    while ((a = at[i]) != 0) {
      if (hashes[i] == hash
          && set.matches(arena, a, (int) arena[a - 1])
          && Objects.equals(states[i], state)) {
        return false;
      }
      i = (i + 1) & mask;
    }
    int len = set.encodedLength();
    if (top + len + 1 > arena.length) {
      long grown = Math.max((long) arena.length + (arena.length >> 1), (long) top + len + 1);
      if (grown > Integer.MAX_VALUE - 8) {
        throw new OutOfMemoryError("configuration cache over 2^31 words");
      }
      arena = java.util.Arrays.copyOf(arena, (int) grown);
    }
    arena[top] = len;
    set.encode(arena, top + 1);
    at[i] = top + 1;
    top += len + 1;
    hashes[i] = hash;
    states[i] = state;
    if (++size * 2 > hashes.length) {
      grow();
    }
    return true;
  }

  int size() {
    return size;
  }

  /** Words used by the stored encodings (for tests and benchmarks). */
  int arenaWords() {
    return top;
  }

  private int slot(long hash) {
    return (int) (hash ^ (hash >>> 32)) & mask;
  }

  private void grow() {
    long[] oldHashes = hashes;
    int[] oldAt = at;
    Object[] oldStates = states;
    allocate(Math.max(oldHashes.length * 2, firstGrowth));
    for (int j = 0; j < oldHashes.length; j++) {
      if (oldAt[j] != 0) {
        int i = slot(oldHashes[j]);
        while (at[i] != 0) {
          i = (i + 1) & mask;
        }
        at[i] = oldAt[j];
        hashes[i] = oldHashes[j];
        states[i] = oldStates[j];
      }
    }
  }
}
