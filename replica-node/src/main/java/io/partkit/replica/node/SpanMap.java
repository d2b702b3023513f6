package io.partkit.replica.node;

import io.partkit.replica.Bytes;
import io.partkit.replica.Numbering;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.TokenRanges;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The coordinator's partition indices and the replica core's partition numbers, matched by the
 * keys each holds, and the core splits that make the core's table as fine as a coordinator's.
 * Pure: the executor reads the control's numberings on its thread and acts on the answers.
 *
 * <h2>Why a map</h2>
 * A partkit table numbers its partitions by position: a key-range split ({@link
 * KeyRanges#withSplit}) shifts every later index, and a token ring's index is a token's rank,
 * which a joiner's tokens change. The core's numbers are stable: partition {@code p} at modulus
 * {@code m} splits into {@code p}, which keeps the low side (keys below the cut, tokens up to
 * it), and {@code p + m}, which takes the rest ({@link Numbering}). So a coordinator index and a
 * core number name the same partition only by the span they cover. Hash slots never split here
 * (the {@code fixed} and {@code rendezvous} strategies keep their count): their map is the
 * identity, checked partition by partition.
 *
 * <h2>Spans as boundaries</h2>
 * Both tables tile one line, so each is its set of boundaries: a key range's first key (the
 * empty key is no boundary), a token range's last token. The core refines the coordinator when
 * every coordinator boundary is a core boundary; then each core partition lies inside one
 * coordinator partition, and a coordinator partition whose two ends are both core boundaries
 * with none between is one core partition of equal span. The core may be finer than the
 * coordinator's committed table, never coarser: a split it prepared ({@code prepareSplit}) is
 * made before the coordinator commits it, and the coordinator may give it up; and a
 * coordinator's merge leaves the core as it was. Its partitions inside one coordinator partition
 * all take that partition's row.
 *
 * <h2>Why a coordinator's merge merges no core partitions</h2>
 * A coordinator merges only ranges on the same replicas ({@link #checkRefines}), so no key
 * changes nodes; clients route by the control's table, never by the coordinator's; so a core
 * finer than the coordinator serves the merged range correctly as it is, and the merge is
 * metadata only, done once the coordinator commits. A core merge ({@code Control#merge}) would
 * not cover every coordinator merge (it joins only the two halves of one split, so not three
 * ranges, nor neighbours from different parents) and could start only once both halves are
 * level and quiet ({@code Control#whyNotMerge}), holding the coordinator's step back meanwhile.
 * The cost is a core that never gets coarser: more partitions than the coordinator's table (each
 * one more configuration, one more page of a scan); a later split at a kept boundary is free.
 *
 * <h2>Split order</h2>
 * The cuts inside one core partition are made from its low end up, each on the upper part the
 * previous one split off: {@code p} at {@code c1} keeps the span up to {@code c1}, the new
 * partition {@code p + m} holds everything above, which {@code c2} then cuts, and so on. Each
 * step's partition number is known in advance ({@code p + m}, then {@code p + 3m}, ...), so the
 * splits are a plain list the control carries out in order.
 */
final class SpanMap {

  /** A split for the control: {@link io.partkit.replica.Control#split(int, Bytes)}. */
  record CoreSplit(int partition, Bytes cut) {}

  private final PartitionScheme scheme;
  /** By coordinator index: the core numbers inside it, from its low end up. */
  private final List<List<Integer>> cores;
  /** Core number to the coordinator index holding it. */
  private final TreeMap<Integer, Integer> indexOf;

  private SpanMap(PartitionScheme scheme, List<List<Integer>> cores,
      TreeMap<Integer, Integer> indexOf) {
    this.scheme = scheme;
    this.cores = cores;
    this.indexOf = indexOf;
  }

  /**
   * The map between {@code scheme}'s indices and the core's numbers.
   *
   * @param core the control's table: each partition's numbering, by number
   * @throws IllegalArgumentException when the core's table does not refine {@code scheme}
   *     (naming where: a coordinator boundary inside a core partition, another kind of line,
   *     another key hash, hash slots numbered otherwise)
   */
  static SpanMap of(PartitionScheme scheme, SortedMap<Integer, Numbering> core) {
    Line line = Line.of(scheme);
    if (line == null) {
      return identity(scheme, core);
    }
    Tiling tiling = line.tile(core);
    for (Bytes b : line.boundaries(scheme)) {
      if (!tiling.boundaries().contains(b)) {
        int c = tiling.containing(b);
        throw new IllegalArgumentException("coordinator partition " + line.indexOf(scheme, b)
            + " " + line.edge() + " " + line.show(b) + ", inside the control's partition " + c
            + " " + core.get(c).describe(c) + ": expected the control's table to be as fine as "
            + scheme + " (a split it did not make)");
      }
    }
    List<List<Integer>> byIndex = new ArrayList<>();
    for (int i = 0; i < scheme.partitionCount(); i++) {
      byIndex.add(new ArrayList<>());
    }
    TreeMap<Integer, Integer> indexOf = new TreeMap<>();
    // named in line order, so each index's list runs from its low end up
    for (Map.Entry<Bytes, Integer> e : tiling.named().entrySet()) {
      int i = line.indexOf(scheme, e.getKey());
      byIndex.get(i).add(e.getValue());
      indexOf.put(e.getValue(), i);
    }
    if (scheme instanceof TokenRanges ring) {
      rotateWrapped(byIndex, ring, core);
    }
    List<List<Integer>> frozen = new ArrayList<>(byIndex.size());
    byIndex.forEach(l -> frozen.add(List.copyOf(l)));
    return new SpanMap(scheme, List.copyOf(frozen), indexOf);
  }

  /**
   * Index 0 of a ring wraps: the core partitions named by the smallest tokens come after those
   * named by tokens past the ring's largest, from the range's low end up.
   */
  private static void rotateWrapped(List<List<Integer>> byIndex, TokenRanges ring,
      SortedMap<Integer, Numbering> core) {
    // the distance past the token before the range, less one: the range's own last token,
    // which is that same token in a ring of one, comes last
    long after = ring.token(ring.partitionCount() - 1) + 1;
    byIndex.get(0).sort((a, b) -> Long.compareUnsigned(
        ((Numbering.TokenSpans) core.get(a)).span(a)[1] - after,
        ((Numbering.TokenSpans) core.get(b)).span(b)[1] - after));
  }

  private static SpanMap identity(PartitionScheme scheme, SortedMap<Integer, Numbering> core) {
    int n = scheme.partitionCount();
    List<List<Integer>> byIndex = new ArrayList<>(n);
    TreeMap<Integer, Integer> indexOf = new TreeMap<>();
    for (int p = 0; p < n; p++) {
      Numbering expected;
      try {
        expected = Numbering.of(scheme, p);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("coordinator partition " + p + " of " + scheme
            + " is numbered by no numbering of the core's: " + e.getMessage(), e);
      }
      Numbering held = core.get(p);
      if (!expected.equals(held)) {
        throw new IllegalArgumentException("coordinator partition " + p + " holds "
            + expected.describe(p) + ", the control's "
            + (held == null ? "table has no partition " + p : "holds " + held.describe(p))
            + ": expected hash slots numbered as the coordinator's " + scheme);
      }
      byIndex.add(List.of(p));
      indexOf.put(p, p);
    }
    if (core.size() != n) {
      throw new IllegalArgumentException("the control's table has " + core.size()
          + " partitions, coordinator's " + scheme + " " + n + ": hash slots never split here");
    }
    return new SpanMap(scheme, List.copyOf(byIndex), indexOf);
  }

  /**
   * The splits that make the core's table as fine as {@code target}: a cut at every boundary of
   * {@code target} the core lacks, in an order the control can carry out one after the other.
   * Empty when the core is as fine already (splits made before are not made again).
   *
   * @throws IllegalArgumentException when {@code target} is not a line the core's partitions
   *     number (naming both), or is hash slots the core does not number alike
   */
  static List<CoreSplit> splits(PartitionScheme target, SortedMap<Integer, Numbering> core) {
    Line line = Line.of(target);
    if (line == null) {
      identity(target, core);
      return List.of();
    }
    Tiling tiling = line.tile(core);
    TreeMap<Integer, List<Bytes>> cuts = new TreeMap<>();
    for (Bytes b : line.boundaries(target)) {
      if (!tiling.boundaries().contains(b)) {
        cuts.computeIfAbsent(tiling.containing(b), c -> new ArrayList<>()).add(b);
      }
    }
    List<CoreSplit> splits = new ArrayList<>();
    cuts.forEach((p, at) -> {
      Numbering n = core.get(p);
      at.sort(line.fromLowEnd(n, p));
      int part = p;
      for (Bytes cut : at) {
        splits.add(new CoreSplit(part, cut));
        Numbering next = n.split(part, cut); // checks the cut, and that numbers remain
        part = (int) (part + n.modulus());
        n = next;
      }
    });
    return List.copyOf(splits);
  }

  /**
   * Checks that {@code split} is a re-cut {@code prepareSplit} can carry out without moving data:
   * the same kind of line and key hash, and every split partition on the replicas of each
   * committed partition it overlaps. So a split partition inside one committed partition keeps
   * that partition's row (a split), and one covering several whole committed partitions covers
   * only partitions with one row, which it keeps (a merge, as {@code RangeSplits} plans).
   *
   * <p>A merge needs no core merge: the core stays finer than the coordinator, its partitions
   * inside the merged range all on that range's replicas ({@link #of} maps them all to it).
   *
   * @throws IllegalArgumentException naming the first partition that breaks it and what was
   *     expected
   */
  static void checkRefines(PartitionAssignment committed, PartitionAssignment split) {
    PartitionScheme from = committed.scheme();
    PartitionScheme to = split.scheme();
    String tables = "the split table at epoch " + split.epoch() + " (" + to
        + ") of the committed one at epoch " + committed.epoch() + " (" + from + ")";
    Line line = Line.of(from);
    if (line == null || Line.of(to) == null || line.getClass() != Line.of(to).getClass()
        || from.keyHash() != to.keyHash()) {
      if (from.equals(to)) {
        return; // no re-cut: nothing to split
      }
      throw new IllegalArgumentException(tables + " cuts another line: expected key ranges"
          + " re-cut into key ranges or a token ring into a token ring of the same key hash (the"
          + " core splits spans; hash slots keep their count here)");
    }
    // the pieces both tables cut the line into, each named by a boundary of either: each lies
    // inside one committed and one split partition
    TreeSet<Bytes> pieces = line.boundaries(to);
    pieces.addAll(line.boundaries(from));
    List<Bytes> named = new ArrayList<>(pieces);
    if (line instanceof KeyLine) {
      named.add(0, KeyLine.EMPTY); // the first range has no boundary of its own
    }
    for (Bytes b : named) {
      int j = line.indexOf(to, b);
      int i = line.indexOf(from, b);
      List<NodeId> want = committed.replicas(i);
      if (split.replicas(j).equals(want)) {
        continue;
      }
      throw new IllegalArgumentException(tables + ": split partition " + j + " overlaps"
          + " committed partition " + i + " but names replicas " + split.replicas(j)
          + ", expected its " + want + " (a re-cut moves no data: a split keeps its partition's"
          + " replicas, a merge covers only partitions on the same replicas)");
    }
  }

  /** The scheme this map is for. */
  PartitionScheme scheme() {
    return scheme;
  }

  /** The core numbers inside coordinator partition {@code index}, from its low end up. */
  List<Integer> cores(int index) {
    return cores.get(index);
  }

  /** The coordinator index holding core partition {@code core}. */
  int index(int core) {
    Integer i = indexOf.get(core);
    if (i == null) {
      throw new IllegalArgumentException("no partition " + core + " in the control's table");
    }
    return i;
  }

  /** Whether every coordinator partition is one core partition of equal span. */
  boolean equalSpans() {
    return indexOf.size() == cores.size();
  }

  /** Each core partition's value: that of the coordinator partition holding it. */
  <T> SortedMap<Integer, T> toCore(Map<Integer, T> byIndex) {
    TreeMap<Integer, T> out = new TreeMap<>();
    byIndex.forEach((i, v) -> {
      if (i >= 0 && i < cores.size()) {
        cores.get(i).forEach(c -> out.put(c, v));
      }
    });
    return Collections.unmodifiableSortedMap(out);
  }

  /** Per coordinator index, the sum of {@code byCore} over the core partitions inside it. */
  double[] sumByIndex(Map<Integer, Double> byCore) {
    double[] sums = new double[cores.size()];
    byCore.forEach((c, v) -> {
      Integer i = indexOf.get(c);
      if (i != null) {
        sums[i] += v;
      }
    });
    return sums;
  }

  /** What a core partition's primary measured of it: its keys, and its median key or null. */
  record CoreSize(long keys, byte[] splitKey) {}

  /**
   * Per coordinator index, its keys (the sum over the core partitions inside it) and the key to
   * cut it at: the split key of the core partition inside it that holds the most keys (the
   * lowest of those on a tie). For a coordinator partition that is one core partition, that is
   * its median. For one of several core partitions (the core stays finer after a merge or a
   * split the coordinator gave up) it is the median of the largest part, not of the whole: each
   * node knows the median of its own copies only, and the largest part's median lies inside the
   * range and cuts off at least half of that part, so a range over the size threshold still
   * shrinks with each split; the halves differ by at most the other parts' keys.
   *
   * @param byCore every core partition's size, by core number
   * @throws IllegalArgumentException naming a core partition of this map without a size
   */
  List<CoreSize> sizesByIndex(Map<Integer, CoreSize> byCore) {
    List<CoreSize> sizes = new ArrayList<>(cores.size());
    for (int i = 0; i < cores.size(); i++) {
      long keys = 0;
      CoreSize largest = null;
      for (int c : cores.get(i)) {
        CoreSize s = byCore.get(c);
        if (s == null) {
          throw new IllegalArgumentException("no size of the control's partition " + c
              + ", inside coordinator partition " + i + ": expected one of every partition");
        }
        keys += s.keys();
        if (largest == null || s.keys() > largest.keys()) {
          largest = s;
        }
      }
      sizes.add(new CoreSize(keys, largest == null ? null : largest.splitKey()));
    }
    return List.copyOf(sizes);
  }

  @Override
  public String toString() {
    return "SpanMap{" + scheme + ", core " + indexOf + "}";
  }

  /** A core table on a line: its partitions by the boundary naming each, in line order. */
  private record Tiling(Line line, TreeMap<Bytes, Integer> named, TreeSet<Bytes> boundaries) {
    /** The core partition holding position {@code at}. */
    int containing(Bytes at) {
      return line.containing(named, at);
    }
  }

  /** What differs between a key line and a token ring. */
  private abstract static sealed class Line permits KeyLine, TokenLine {
    final Comparator<Bytes> order;

    Line(Comparator<Bytes> order) {
      this.order = order;
    }

    /** The line of {@code scheme}, null for hash slots. */
    static Line of(PartitionScheme scheme) {
      if (scheme instanceof KeyRanges) {
        return new KeyLine();
      }
      if (scheme instanceof TokenRanges ring) {
        return new TokenLine(ring);
      }
      return null;
    }

    /** The scheme's boundaries, in line order. */
    abstract TreeSet<Bytes> boundaries(PartitionScheme scheme);

    /** The scheme's index holding {@code position}. */
    abstract int indexOf(PartitionScheme scheme, Bytes position);

    /** The boundary naming core partition {@code id}; checks its numbering's kind. */
    abstract Bytes name(Numbering n, int id);

    /** The core partition holding {@code at}, of partitions named as {@link #name} names. */
    abstract int containing(TreeMap<Bytes, Integer> named, Bytes at);

    /** Positions inside core partition {@code id}, from its low end up. */
    abstract Comparator<Bytes> fromLowEnd(Numbering n, int id);

    /** What a boundary is to the partition it names, for messages. */
    abstract String edge();

    abstract String show(Bytes b);

    /** Whether {@code b} names a partition and is also a boundary (the empty key is not). */
    boolean isBoundary(Bytes b) {
      return true;
    }

    Tiling tile(SortedMap<Integer, Numbering> core) {
      TreeMap<Bytes, Integer> named = new TreeMap<>(order);
      core.forEach((id, n) -> {
        Integer twin = named.put(name(n, id), id);
        if (twin != null) {
          throw new IllegalArgumentException("the control's partitions " + twin + " and " + id
              + " both " + edge() + " " + show(name(n, id)) + ": expected a table that tiles"
              + " its line");
        }
      });
      if (named.isEmpty()) {
        throw new IllegalArgumentException("the control's table has no partitions");
      }
      TreeSet<Bytes> boundaries = new TreeSet<>(order);
      named.keySet().stream().filter(this::isBoundary).forEach(boundaries::add);
      return new Tiling(this, named, boundaries);
    }
  }

  /** Key ranges: a partition is named by its first key, the empty key for the first. */
  private static final class KeyLine extends Line {
    static final Bytes EMPTY = Bytes.of(new byte[0]);

    KeyLine() {
      super(Comparator.naturalOrder());
    }

    @Override
    TreeSet<Bytes> boundaries(PartitionScheme scheme) {
      TreeSet<Bytes> b = new TreeSet<>(order);
      ((KeyRanges) scheme).splits().forEach(s -> b.add(Bytes.of(s)));
      return b;
    }

    @Override
    int indexOf(PartitionScheme scheme, Bytes position) {
      return ((KeyRanges) scheme).partitionOfKey(position.toArray());
    }

    @Override
    Bytes name(Numbering n, int id) {
      if (!(n instanceof Numbering.KeySpans spans)) {
        throw new IllegalArgumentException("the control's partition " + id + " holds "
            + n.describe(id) + ": expected a key range, as the coordinator's key ranges");
      }
      return spans.span(id)[0];
    }

    @Override
    int containing(TreeMap<Bytes, Integer> named, Bytes at) {
      return named.floorEntry(at).getValue(); // the first range starts at the empty key
    }

    @Override
    Comparator<Bytes> fromLowEnd(Numbering n, int id) {
      return order;
    }

    @Override
    boolean isBoundary(Bytes b) {
      return !b.equals(EMPTY);
    }

    @Override
    String edge() {
      return "starts at key";
    }

    @Override
    String show(Bytes b) {
      return "0x" + b;
    }
  }

  /**
   * A token ring: a partition is named by its last token (Cassandra's convention), and the
   * partition named by the smallest token wraps around past the largest.
   */
  private static final class TokenLine extends Line {
    private final TokenRanges ring;

    TokenLine(TokenRanges ring) {
      super(Comparator.comparingLong(Bytes::toLong));
      this.ring = ring;
    }

    @Override
    TreeSet<Bytes> boundaries(PartitionScheme scheme) {
      TreeSet<Bytes> b = new TreeSet<>(order);
      for (long t : ((TokenRanges) scheme).tokens()) {
        b.add(Bytes.ofLong(t));
      }
      return b;
    }

    @Override
    int indexOf(PartitionScheme scheme, Bytes position) {
      long[] tokens = ((TokenRanges) scheme).tokens();
      int i = Arrays.binarySearch(tokens, position.toLong());
      int at = i >= 0 ? i : -i - 1; // the first token at or after the position
      return at == tokens.length ? 0 : at; // past the largest: the range that wraps
    }

    @Override
    Bytes name(Numbering n, int id) {
      if (!(n instanceof Numbering.TokenSpans spans) || spans.hash() != ring.keyHash()) {
        throw new IllegalArgumentException("the control's partition " + id + " holds "
            + n.describe(id) + (n instanceof Numbering.TokenSpans s ? " of key hash " + s.hash()
            : "") + ": expected a token range of " + ring.keyHash()
            + ", as the coordinator's ring");
      }
      return Bytes.ofLong(spans.span(id)[1]);
    }

    @Override
    int containing(TreeMap<Bytes, Integer> named, Bytes at) {
      Map.Entry<Bytes, Integer> e = named.ceilingEntry(at);
      return (e == null ? named.firstEntry() : e).getValue();
    }

    @Override
    Comparator<Bytes> fromLowEnd(Numbering n, int id) {
      long after = ((Numbering.TokenSpans) n).span(id)[0];
      // distance from the token before the range, unsigned: the ring's order from there
      return (a, b) -> Long.compareUnsigned(a.toLong() - after, b.toLong() - after);
    }

    @Override
    String edge() {
      return "ends at token";
    }

    @Override
    String show(Bytes b) {
      return Long.toString(b.toLong());
    }
  }
}
