package io.partkit.replica;

import io.partkit.spi.KeyRanges;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import java.math.BigInteger;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Which keys a partition holds: the numbering its configurations, copies and split records
 * carry, so that every node divides its copy the same way with no other table.
 *
 * <p>A table starts with partitions {@code 0..base-1} at modulus {@code base}. Splitting
 * partition {@code p} at modulus {@code m} doubles its modulus: {@code p} keeps part of its keys
 * and the new partition {@code p + m} takes the rest, and both halves then carry the same
 * numbering. So a partition's number and modulus name its place in the tree of splits from its
 * first partition {@code p mod base}: at each doubling from {@code base} on, the bit of {@code p}
 * worth the modulus before it says whether the partition went with the half that stayed (0) or
 * the half split off (1).
 *
 * <ul>
 *   <li>{@link Hashed}: the core's hash halves (see {@link Partitioning}); a split cuts a
 *       partition's keys by one more bit of their hash, so the numbering needs no cut.
 *   <li>{@link KeySpans}: ranges of keys in unsigned byte order, as {@link KeyRanges} routes;
 *       a split cuts a partition's range at a key, and the half split off takes the keys from
 *       that key on.
 *   <li>{@link TokenSpans}: ranges of a token ring, as {@link TokenRanges} routes (Cassandra's
 *       convention: a range ends at its token, inclusive, and one range wraps around); a split
 *       cuts a partition's range at a token, and the half split off takes the tokens above it.
 * </ul>
 *
 * <p>A span numbering holds its first partition's range and the cut of every split on the way
 * from it ({@link #cut}), one a doubling, so a node holding an ancestor's copy can carry out the
 * splits it missed in order, each with its cut, whichever descendant's configuration reaches it
 * first.
 *
 * <p>A merge ({@link #merge}) goes the other way: two sibling partitions {@code p} and {@code p +
 * m} at modulus {@code 2m} become {@code p} at modulus {@code m} again. Since a merged partition
 * may split again (at another cut), the modulus alone no longer orders two numberings of one
 * partition: each numbering also counts its {@link #generation}, one more than the newer of the
 * two it merged, and a numbering is newer than another when its generation is larger, or equal
 * with a larger modulus ({@link #newerThan}).
 */
public sealed interface Numbering {

  /** A numbering that numbers nothing (a driver or test that routes no keys): holds every key. */
  Numbering NONE = new Unnumbered();

  /** The first table's partition count; 0 for {@link #NONE}. */
  int base();

  /** Its modulus: the base times 2 to the number of splits on the way; 0 for {@link #NONE}. */
  long modulus();

  /** Whether partition {@code id} holds {@code key}. */
  boolean holds(int id, Bytes key);

  /**
   * How many merges lie on the way to this numbering (the larger count of the two a merge joins,
   * plus one); 0 for a table never merged, and for {@link #NONE}.
   */
  long generation();

  /**
   * Whether this numbering of a partition comes after {@code other}: a larger generation, or the
   * same with more splits.
   */
  default boolean newerThan(Numbering other) {
    return generation() != other.generation() ? generation() > other.generation()
        : modulus() > other.modulus();
  }

  /**
   * The numbering partition {@code id} and its sibling (the other half of the split that made
   * them) carry once merged back into one, at generation {@code generation}: the numbering at
   * half the modulus.
   *
   * @throws IllegalArgumentException when the partition is one of the first table's (no split
   *     made it), or numbers nothing, or the generation does not pass this one's
   */
  Numbering merge(int id, long generation);

  /** This numbering at generation {@code generation}: the same partitions, otherwise counted. */
  Numbering withGeneration(long generation);

  /**
   * The numbering both halves carry once partition {@code id} splits at {@code cut} (a key for
   * key spans, a token's eight big-endian bytes for token spans, null for hash halves).
   *
   * @throws IllegalArgumentException when the cut is not strictly inside the partition's range,
   *     or is given to (or missing from) a numbering that takes none, or the numbers would run
   *     out
   */
  Numbering split(int id, Bytes cut);

  /**
   * Where partition {@code id} would split in two equal halves of its line, empty when it cannot
   * (a range of one position).
   */
  Optional<Bytes> midpoint(int id);

  /** The numbering of an ancestor at {@code modulus}, a smaller modulus on the way. */
  Numbering upTo(long modulus);

  /** The cut of the split from {@code modulus} to twice it, null for hash halves. */
  Bytes cut(long modulus);

  /** Partition {@code id}'s range, for messages. */
  String describe(int id);

  /**
   * The numbering of partition {@code partition} of a partkit table, as its scheme routes: hash
   * slots of {@link KeyHash#MURMUR3_128} (the {@code fixed} strategy's), key ranges or a token
   * ring.
   *
   * @throws IllegalArgumentException for hash slots of another key hash, which the core's hash
   *     halves do not reproduce
   */
  static Numbering of(PartitionScheme scheme, int partition) {
    int n = scheme.partitionCount();
    if (partition < 0 || partition >= n) {
      throw new IndexOutOfBoundsException("partition must be in 0.." + (n - 1) + ": " + partition);
    }
    if (scheme instanceof KeyRanges ranges) {
      List<byte[]> splits = ranges.splits();
      return new KeySpans(n, n, partition == 0 ? Bytes.of(new byte[0])
          : Bytes.of(splits.get(partition - 1)),
          partition == n - 1 ? null : Bytes.of(splits.get(partition)), List.of());
    }
    if (scheme instanceof TokenRanges ring) {
      long[] t = ring.tokens();
      return new TokenSpans(ring.keyHash(), n, n, partition == 0 ? t[n - 1] : t[partition - 1],
          t[partition], List.of());
    }
    if (scheme.keyHash() != KeyHash.MURMUR3_128) {
      throw new IllegalArgumentException("the core numbers hash slots by "
          + KeyHash.MURMUR3_128 + " only, not " + scheme.keyHash());
    }
    return new Hashed(n, n);
  }

  /** Numbers nothing: every key is held. */
  record Unnumbered() implements Numbering {
    @Override
    public int base() {
      return 0;
    }

    @Override
    public long modulus() {
      return 0;
    }

    @Override
    public boolean holds(int id, Bytes key) {
      return true;
    }

    @Override
    public Numbering split(int id, Bytes cut) {
      throw new IllegalArgumentException("a partition that numbers nothing cannot split");
    }

    @Override
    public long generation() {
      return 0;
    }

    @Override
    public Numbering merge(int id, long generation) {
      throw new IllegalArgumentException("a partition that numbers nothing cannot merge");
    }

    @Override
    public Numbering withGeneration(long generation) {
      return this;
    }

    @Override
    public Optional<Bytes> midpoint(int id) {
      return Optional.empty();
    }

    @Override
    public Numbering upTo(long modulus) {
      return this;
    }

    @Override
    public Bytes cut(long modulus) {
      return null;
    }

    @Override
    public String describe(int id) {
      return "every key";
    }
  }

  /**
   * Hash halves ({@link Partitioning}) at {@code modulus}, in a table of {@code base}, after
   * {@code generation} merges.
   */
  record Hashed(int base, long modulus, long generation) implements Numbering {
    public Hashed {
      Lineage.check(base, modulus);
      Lineage.checkGeneration(generation);
    }

    /** Hash halves of a table never merged. */
    public Hashed(int base, long modulus) {
      this(base, modulus, 0);
    }

    @Override
    public Numbering merge(int id, long g) {
      Lineage.checkMerge(id, base, modulus, generation, g);
      return new Hashed(base, modulus / 2, g);
    }

    @Override
    public Numbering withGeneration(long g) {
      return new Hashed(base, modulus, g);
    }

    @Override
    public boolean holds(int id, Bytes key) {
      return Math.floorMod(Partitioning.number(Partitioning.hash(key), base), modulus) == id;
    }

    @Override
    public Numbering split(int id, Bytes cut) {
      if (cut != null) {
        throw new IllegalArgumentException("hash halves split by one more bit of the hash and "
            + "take no cut, got " + cut);
      }
      Lineage.checkSplit(id, modulus);
      return new Hashed(base, modulus * 2, generation);
    }

    @Override
    public Optional<Bytes> midpoint(int id) {
      return Optional.empty();
    }

    @Override
    public Numbering upTo(long m) {
      Lineage.level(base, modulus, m);
      return new Hashed(base, m, generation);
    }

    @Override
    public Bytes cut(long m) {
      return null;
    }

    @Override
    public String describe(int id) {
      return "keys numbered " + id + " modulo " + modulus + " (base " + base + ")"
          + Lineage.describeGeneration(generation);
    }
  }

  /**
   * Key ranges: the first partition's keys are {@code [from, to)} (to null: no end), and {@code
   * cuts} are the keys the splits on the way cut at, one a doubling; after {@code generation}
   * merges.
   */
  record KeySpans(int base, long modulus, Bytes from, Bytes to, List<Bytes> cuts,
      long generation) implements Numbering {
    public KeySpans {
      Objects.requireNonNull(from, "from (the empty key is the first)");
      cuts = List.copyOf(cuts);
      Lineage.check(base, modulus, cuts);
      Lineage.checkGeneration(generation);
      if (to != null && from.compareTo(to) >= 0) {
        throw new IllegalArgumentException("key range [" + from + ", " + to + ") is empty");
      }
    }

    /** Key ranges of a table never merged. */
    public KeySpans(int base, long modulus, Bytes from, Bytes to, List<Bytes> cuts) {
      this(base, modulus, from, to, cuts, 0);
    }

    @Override
    public Numbering merge(int id, long g) {
      Lineage.checkMerge(id, base, modulus, generation, g);
      return new KeySpans(base, modulus / 2, from, to, cuts.subList(0, cuts.size() - 1), g);
    }

    @Override
    public Numbering withGeneration(long g) {
      return new KeySpans(base, modulus, from, to, cuts, g);
    }

    /**
     * Partition {@code id}'s range: its first key and the key past it (null: no end), a new
     * array each call. A driver that matches these ranges with a partkit table's (a coordinator
     * deciding the table) reads them here rather than redoing the walk down the split tree.
     */
    public Bytes[] span(int id) {
      Lineage.Bounds<Bytes> b = Lineage.bounds(id, base, modulus, cuts, from, to, c -> c);
      return new Bytes[] {b.low(), b.high()};
    }

    @Override
    public boolean holds(int id, Bytes key) {
      Bytes[] s = span(id);
      return s[0].compareTo(key) <= 0 && (s[1] == null || key.compareTo(s[1]) < 0);
    }

    @Override
    public Numbering split(int id, Bytes cut) {
      Bytes[] s = span(id);
      if (cut == null || s[0].compareTo(cut) >= 0 || s[1] != null && cut.compareTo(s[1]) >= 0) {
        throw new IllegalArgumentException("cannot split partition " + id + " " + describe(id)
            + " at " + cut + ": expected a key strictly inside it, above its first key");
      }
      Lineage.checkSplit(id, modulus);
      return new KeySpans(base, modulus * 2, from, to, Lineage.plus(cuts, cut), generation);
    }

    @Override
    public Optional<Bytes> midpoint(int id) {
      Bytes[] s = span(id);
      BigInteger lo = prefix(s[0]);
      BigInteger hi = s[1] == null ? BigInteger.ONE.shiftLeft(64) : prefix(s[1]);
      Bytes mid = Bytes.ofLong(lo.add(hi).shiftRight(1).longValue());
      return s[0].compareTo(mid) < 0 && (s[1] == null || mid.compareTo(s[1]) < 0)
          ? Optional.of(mid) : Optional.empty();
    }

    /** The first eight bytes of a key, zero-padded, as an unsigned number. */
    private static BigInteger prefix(Bytes key) {
      byte[] b = java.util.Arrays.copyOf(key.toArray(), 8);
      return new BigInteger(1, b);
    }

    @Override
    public Numbering upTo(long m) {
      return new KeySpans(base, m, from, to, cuts.subList(0, Lineage.level(base, modulus, m)),
          generation);
    }

    @Override
    public Bytes cut(long m) {
      return cuts.get(Lineage.level(base, modulus, m));
    }

    @Override
    public String describe(int id) {
      Bytes[] s = span(id);
      return "[" + s[0] + ", " + (s[1] == null ? "end" : s[1]) + ")"
          + Lineage.describeGeneration(generation);
    }
  }

  /**
   * Token ranges of a ring over {@code hash}: the first partition's tokens are {@code (after,
   * upTo]}, wrapping past the largest token when {@code after >= upTo} (all of them when equal),
   * and {@code cuts} are the tokens the splits on the way cut at, one a doubling, as eight
   * big-endian bytes each; after {@code generation} merges.
   */
  record TokenSpans(KeyHash hash, int base, long modulus, long after, long upTo, List<Bytes> cuts,
      long generation) implements Numbering {
    public TokenSpans {
      Objects.requireNonNull(hash, "hash");
      cuts = List.copyOf(cuts);
      Lineage.check(base, modulus, cuts);
      Lineage.checkGeneration(generation);
      for (Bytes c : cuts) {
        if (c.length() != Long.BYTES) {
          throw new IllegalArgumentException("a token cut is eight bytes, got " + c);
        }
      }
    }

    /** Token ranges of a ring never merged. */
    public TokenSpans(KeyHash hash, int base, long modulus, long after, long upTo,
        List<Bytes> cuts) {
      this(hash, base, modulus, after, upTo, cuts, 0);
    }

    @Override
    public Numbering merge(int id, long g) {
      Lineage.checkMerge(id, base, modulus, generation, g);
      return new TokenSpans(hash, base, modulus / 2, after, upTo,
          cuts.subList(0, cuts.size() - 1), g);
    }

    @Override
    public Numbering withGeneration(long g) {
      return new TokenSpans(hash, base, modulus, after, upTo, cuts, g);
    }

    /**
     * Partition {@code id}'s range: the token before it and its last token, a new array each
     * call (equal ends: the whole ring). Public for the same reason as {@link KeySpans#span}.
     */
    public long[] span(int id) {
      Lineage.Bounds<Long> b = Lineage.bounds(id, base, modulus, cuts, after, upTo, Bytes::toLong);
      return new long[] {b.low(), b.high()};
    }

    private static boolean in(long a, long u, long t) {
      return a < u ? a < t && t <= u : t > a || t <= u;
    }

    @Override
    public boolean holds(int id, Bytes key) {
      long[] s = span(id);
      return in(s[0], s[1], hash.hash(key.toArray()));
    }

    @Override
    public Numbering split(int id, Bytes cut) {
      long[] s = span(id);
      if (cut == null || cut.length() != Long.BYTES || !in(s[0], s[1], cut.toLong())
          || cut.toLong() == s[1]) {
        throw new IllegalArgumentException("cannot split partition " + id + " " + describe(id)
            + " at " + cut + ": expected a token's eight bytes strictly inside it, below its"
            + " last token");
      }
      Lineage.checkSplit(id, modulus);
      return new TokenSpans(hash, base, modulus * 2, after, upTo, Lineage.plus(cuts, cut),
          generation);
    }

    @Override
    public Optional<Bytes> midpoint(int id) {
      long[] s = span(id);
      long width = s[1] - s[0]; // unsigned; 0: the whole ring
      long mid = width == 0 ? s[0] + Long.MIN_VALUE : s[0] + (width >>> 1);
      return width == 1 ? Optional.empty() : Optional.of(Bytes.ofLong(mid));
    }

    @Override
    public Numbering upTo(long m) {
      return new TokenSpans(hash, base, m, after, upTo,
          cuts.subList(0, Lineage.level(base, modulus, m)), generation);
    }

    @Override
    public Bytes cut(long m) {
      return cuts.get(Lineage.level(base, modulus, m));
    }

    @Override
    public String describe(int id) {
      long[] s = span(id);
      return "(" + s[0] + ", " + s[1] + "]" + Lineage.describeGeneration(generation);
    }
  }
}
