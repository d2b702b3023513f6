package io.partkit.verification.checker;

/*
 * Design. The set of linearized operations of one search, with an encoding whose size follows
 * the concurrency of the history instead of its length.
 *
 * Operations are numbered in invocation order. Call the frontier the smallest :ok operation not
 * in the set. Every :ok operation below it is linearized, so a configuration is fully described
 * by (a) the frontier, (b) which :info operations below the frontier's 64-bit word are
 * linearized (an :info operation has no return, so it can stay out of the set forever: it is
 * listed, not implied), and (c) the bits of the words from the frontier's word up to the highest
 * word with a bit set. The walk can only linearize an operation whose call comes before the
 * first return still in the event list (Wing & Gong 1993), so everything linearized sits between
 * the frontier and the calls invoked before the frontier's return: (c) spans the operations that
 * were open together with the frontier's, a window as wide as the concurrency (plus the :info
 * operations that stay open). Porcupine (checker.go) and Knossos (wgl.clj) key Lowe's cache
 * (Lowe 2017) by a bitset as long as the history: n configurations of n bits for a sequential
 * history, n^2 memory. Here a sequential history costs three words per configuration.
 *
 * The encoding is canonical (a function of the set alone) and injective (frontier, info count and
 * length are stored), so two configurations compare equal iff their sets are equal: the cache
 * stays exact, only smaller. The 64-bit Zobrist hash (one pseudo-random word per operation,
 * Lowe's incremental hashing) is still over the whole set.
 *
 * Known limit: the :info operations below the frontier are listed per configuration, so a long
 * history with many crashed operations that were linearized still costs a word per such
 * operation per configuration (each :info operation is concurrent with everything after it).
 */
final class FrontierSet {
  private final int n;
  private final boolean[] info;
  private final long[] bits;
  private final int[] infoIds; // the :info operations in id order
  private final long[] infoBits; // by rank among the :info operations: linearized?
  private final int[] infoRankBelowWord; // per word w: how many :info operations have id < 64 * w
  private long hash;
  private int frontier;
  private int hiWord = -1; // highest word of bits with a bit set, -1 when empty
  private int infoBelow; // linearized :info operations below the frontier's word, kept as both move
  private int size;

  FrontierSet(boolean[] info) {
    this.n = info.length;
    this.info = info;
    int words = (n >>> 6) + 1;
    bits = new long[words];
    int infos = 0;
    for (boolean b : info) {
      infos += b ? 1 : 0;
    }
    infoIds = new int[infos];
    infoRankBelowWord = new int[words + 1];
    int r = 0;
    for (int i = 0; i < n; i++) {
      if ((i & 63) == 0) {
        infoRankBelowWord[i >>> 6] = r;
      }
      if (info[i]) {
        infoIds[r++] = i;
      }
    }
    for (int w = ((n + 63) >>> 6); w <= words; w++) {
      infoRankBelowWord[w] = r;
    }
    infoBits = new long[(infos >>> 6) + 1];
    frontier = 0;
    advance();
  }

  /**
   * The Zobrist word of an operation: SplitMix64's finalizer (Steele, Lea, Flood 2014) of its id,
   * computed when needed instead of a table of random words filled per search.
   */
  static long zobrist(int op) {
    long z = (op + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  long hash() {
    return hash;
  }

  int size() {
    return size;
  }

  boolean contains(int op) {
    return (bits[op >>> 6] & (1L << op)) != 0;
  }

  /** Adds an operation not in the set. */
  void add(int op) {
    bits[op >>> 6] |= 1L << op;
    hash ^= zobrist(op);
    size++;
    if (op >>> 6 > hiWord) {
      hiWord = op >>> 6;
    }
    if (info[op]) {
      int rank = rankOf(op);
      infoBits[rank >>> 6] |= 1L << rank;
      if (op >>> 6 < frontier >>> 6) {
        infoBelow++;
      }
    } else if (op == frontier) {
      advance();
    }
  }

  /** Removes an operation in the set. */
  void remove(int op) {
    bits[op >>> 6] &= ~(1L << op);
    hash ^= zobrist(op);
    size--;
    while (hiWord >= 0 && bits[hiWord] == 0) {
      hiWord--;
    }
    if (info[op]) {
      int rank = rankOf(op);
      infoBits[rank >>> 6] &= ~(1L << rank);
      if (op >>> 6 < frontier >>> 6) {
        infoBelow--;
      }
    } else if (op < frontier) {
      moveFrontier(op);
    }
  }

  private void advance() {
    int f = frontier;
    while (f < n && (info[f] || contains(f))) {
      f++;
    }
    moveFrontier(f);
  }

  private void moveFrontier(int f) {
    int from = frontier >>> 6;
    int to = f >>> 6;
    frontier = f;
    if (from != to && infoIds.length > 0) {
      int c = linearizedRanks(infoRankBelowWord[Math.min(from, to)], infoRankBelowWord[Math.max(from, to)]);
      infoBelow += to > from ? c : -c;
    }
  }

  /** How many :info operations of rank in [from, to) are in the set. */
  private int linearizedRanks(int from, int to) {
    int count = 0;
    for (int r = from; r < to; ) {
      int w = r >>> 6;
      long word = infoBits[w] & (-1L << r);
      int end = Math.min(to, (w + 1) << 6);
      if (end < (w + 1) << 6) {
        word &= (1L << end) - 1;
      }
      count += Long.bitCount(word);
      r = end;
    }
    return count;
  }

  private int rankOf(int infoOp) {
    int lo = infoRankBelowWord[infoOp >>> 6];
    while (infoIds[lo] != infoOp) {
      lo++;
    }
    return lo;
  }

  /** How many words {@link #encode} writes. */
  int encodedLength() {
    int base = frontier >>> 6;
    return 1 + infoCountBelow(base) + Math.max(0, hiWord - base + 1);
  }

  /** The linearized :info operations below word {@code base}, the frontier's (kept up to date). */
  private int infoCountBelow(int base) {
    assert base == frontier >>> 6;
    return infoBelow;
  }

  /** Writes the canonical encoding at {@code dst[off ..]}: see the design comment. */
  void encode(long[] dst, int off) {
    int base = frontier >>> 6;
    int ranks = infoRankBelowWord[base];
    int count = infoCountBelow(base);
    dst[off++] = ((long) frontier << 32) | count;
    for (int w = 0; w < (ranks + 63) >>> 6; w++) {
      long word = infoBits[w];
      if (w == ranks >>> 6) {
        word &= (1L << ranks) - 1;
      }
      while (word != 0) {
        dst[off++] = infoIds[(w << 6) + Long.numberOfTrailingZeros(word)];
        word &= word - 1;
      }
    }
    for (int w = base; w <= hiWord; w++) {
      dst[off++] = bits[w];
    }
  }

  /** True when {@code src[off .. off + len)} is this set's encoding. */
  boolean matches(long[] src, int off, int len) {
    int base = frontier >>> 6;
    if (src[off] >>> 32 != frontier) {
      return false;
    }
    int count = (int) src[off];
    if (len != 1 + count + Math.max(0, hiWord - base + 1)) {
      return false;
    }
    int at = off + 1 + count;
    for (int w = base; w <= hiWord; w++) {
      if (src[at++] != bits[w]) {
        return false;
      }
    }
    if (infoCountBelow(base) != count) {
      return false;
    }
    if (count == 0) {
      return true;
    }
    long[] mine = new long[len]; // rare: equal frontier and window, and :info operations below
    encode(mine, 0);
    return java.util.Arrays.equals(mine, 1, 1 + count, src, off + 1, off + 1 + count);
  }
}
