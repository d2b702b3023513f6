package io.partkit.verification.checker;

/*
 * Design. The set of linearized operations of one search, with an encoding whose size follows
 * the concurrency of the history instead of its length.
 *
 * Operations are numbered in invocation order. Call the frontier the smallest :ok operation not
 * in the set. Every :ok operation below it is linearized, so a configuration is fully described
 * by (a) the frontier, (b) which :info operations below the frontier's 64-bit word are
 * linearized (an :info operation has no return, so it can stay out of the set forever: it is
 * not implied), as a bitset over the :info operations only (numbered by rank among them), and
 * (c) the bits of the words from the frontier's word up to the highest word with a bit set. The
 * walk can only linearize an operation whose call comes before the first return still in the event
 * list (Wing & Gong 1993), so everything linearized sits between the frontier and the calls invoked
 * before the frontier's return: (c) spans the operations that were open together with the
 * frontier's, a window as wide as the concurrency (plus the :info operations that stay open).
 * Porcupine (checker.go) and Knossos (wgl.clj) key Lowe's cache (Lowe 2017) by a bitset as long as
 * the history: n configurations of n bits for a sequential history, n^2 memory. Here a sequential
 * history costs three words per configuration.
 *
 * The encoding is canonical (a function of the set alone: the number of words of (b) follows
 * from the frontier, (c) ends at the last linearized operation) and injective, so two
 * configurations compare equal iff their sets are equal: the cache
 * stays exact, only smaller. The 64-bit Zobrist hash (one pseudo-random word per operation,
 * Lowe's incremental hashing) is still over the whole set.
 *
 * A history of at most 256 operations (WHOLE_WORDS) is encoded as the whole bitset: as small,
 * and its searches (few operations, many configurations: Porcupine's etcd histories) do not pay
 * for keeping the frontier.
 *
 * Known limit: part (b) costs a word per 64 :info operations below the frontier in every
 * configuration, so a long history with many crashed operations still grows faster than linearly
 * (each :info operation is concurrent with everything after it).
 */
final class FrontierSet {
  /** Histories of up to this many 64-bit words of operations are encoded as the whole bitset. */
  static final int WHOLE_WORDS = 4;

  private final int n;
  private final boolean[] info;
  private final long[] bits;
  // short history: the encoding is the whole bitset (see the design comment)
  private final boolean whole;
  private final int[] rank; // per :info operation, its rank among the :info operations
  private final int[] nextOk; // per id i, the smallest :ok operation >= i, or n
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
    whole = words <= WHOLE_WORDS;
    rank = new int[n];
    nextOk = new int[n + 1];
    infoRankBelowWord = new int[words + 1];
    int r = 0;
    for (int i = 0; i < n; i++) {
      if ((i & 63) == 0) {
        infoRankBelowWord[i >>> 6] = r;
      }
      if (info[i]) {
        rank[i] = r++;
      }
    }
    nextOk[n] = n;
    for (int i = n - 1; i >= 0; i--) {
      nextOk[i] = info[i] ? nextOk[i + 1] : i;
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
    if (whole) {
      return;
    }
    if (op >>> 6 > hiWord) {
      hiWord = op >>> 6;
    }
    if (info[op]) {
      int r = rank[op];
      infoBits[r >>> 6] |= 1L << r;
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
    if (whole) {
      return;
    }
    while (hiWord >= 0 && bits[hiWord] == 0) {
      hiWord--;
    }
    if (info[op]) {
      int r = rank[op];
      infoBits[r >>> 6] &= ~(1L << r);
      if (op >>> 6 < frontier >>> 6) {
        infoBelow--;
      }
    } else if (op < frontier) {
      moveFrontier(op);
    }
  }

  private void advance() {
    int f = nextOk[frontier];
    while (f < n && contains(f)) {
      f = nextOk[f + 1];
    }
    moveFrontier(f);
  }

  private void moveFrontier(int f) {
    int from = frontier >>> 6;
    int to = f >>> 6;
    frontier = f;
    if (from != to) {
      int c =
          linearizedRanks(
              infoRankBelowWord[Math.min(from, to)], infoRankBelowWord[Math.max(from, to)]);
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

  /** How many words {@link #encode} writes. */
  int encodedLength() {
    if (whole) {
      return bits.length;
    }
    int base = frontier >>> 6;
    return 1 + infoWords(base) + Math.max(0, hiWord - base + 1);
  }

  /** Words of the :info bitset (by rank) covering the :info operations below word {@code base}. */
  private int infoWords(int base) {
    return (infoRankBelowWord[base] + 63) >>> 6;
  }

  /** Word {@code w} of the :info bitset, without the ranks at or above {@code ranks}. */
  private long infoWord(int w, int ranks) {
    long word = infoBits[w];
    // w == ranks >>> 6 only when ranks % 64 != 0
    return w == ranks >>> 6 ? word & ((1L << ranks) - 1) : word;
  }

  /** Writes the canonical encoding at {@code dst[off ..]}: see the design comment. */
  void encode(long[] dst, int off) {
    if (whole) {
      System.arraycopy(bits, 0, dst, off, bits.length);
      return;
    }
    int base = frontier >>> 6;
    int ranks = infoRankBelowWord[base];
    dst[off++] = ((long) frontier << 32) | infoBelow;
    for (int w = 0, words = infoWords(base); w < words; w++) {
      dst[off++] = infoWord(w, ranks);
    }
    for (int w = base; w <= hiWord; w++) {
      dst[off++] = bits[w];
    }
  }

  /** True when {@code src[off .. off + len)} is this set's encoding. */
  boolean matches(long[] src, int off, int len) {
    if (whole) {
      for (int w = 0; w < bits.length; w++) {
        if (src[off + w] != bits[w]) {
          return false;
        }
      }
      return true;
    }
    int base = frontier >>> 6;
    if (src[off] != (((long) frontier << 32) | infoBelow) || len != encodedLength()) {
      return false;
    }
    int at = off + 1;
    int ranks = infoRankBelowWord[base];
    for (int w = 0, words = infoWords(base); w < words; w++) {
      if (src[at++] != infoWord(w, ranks)) {
        return false;
      }
    }
    for (int w = base; w <= hiWord; w++) {
      if (src[at++] != bits[w]) {
        return false;
      }
    }
    return true;
  }
}
