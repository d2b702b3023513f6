package io.partkit.replica;

import java.util.ArrayList;
import java.util.List;

/** The arithmetic of the tree of splits every numbering shares. */
final class Lineage {
  private Lineage() {}

  /**
   * Checks that {@code modulus} is {@code base} doubled some times and answers how many.
   *
   * @throws IllegalArgumentException when it is not
   */
  static int check(int base, long modulus) {
    if (base < 1 || modulus < base || modulus % base != 0
        || Long.bitCount(modulus / base) != 1) {
      throw new IllegalArgumentException("a modulus of " + modulus + " is not a table of base "
          + base + " split in halves");
    }
    return Long.numberOfTrailingZeros(modulus / base);
  }

  /** Checks that a span numbering holds one cut a split. */
  static void check(int base, long modulus, List<?> cuts) {
    int splits = check(base, modulus);
    if (splits != cuts.size()) {
      throw new IllegalArgumentException("modulus " + modulus + " of base " + base + " is "
          + splits + " splits on, but " + cuts.size() + " cuts are given");
    }
  }

  /** How many splits lie between {@code base} and {@code m}, a modulus on the way. */
  static int level(int base, long modulus, long m) {
    if (m < base || m > modulus || m % base != 0 || Long.bitCount(m / base) != 1) {
      throw new IllegalArgumentException("modulus " + m + " is not on the way from base " + base
          + " to " + modulus);
    }
    return Long.numberOfTrailingZeros(m / base);
  }

  static void checkId(int id, long modulus) {
    if (id < 0 || id >= modulus) {
      throw new IllegalArgumentException("partition " + id + " is not numbered at modulus "
          + modulus);
    }
  }

  static void checkSplit(int id, long modulus) {
    checkId(id, modulus);
    if (id + modulus > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("partition " + id + " at modulus " + modulus
          + " cannot split: the new partition's number would pass " + Integer.MAX_VALUE);
    }
  }

  /**
   * Whether partition {@code id} is, at the {@code k}-th split from the base, the half split
   * off.
   */
  static boolean splitOff(int id, int base, int k) {
    long m = (long) base << k;
    return id % (2 * m) >= m;
  }

  /** A partition's bounds on its line, as {@link #bounds} finds them. */
  record Bounds<T>(T low, T high) {}

  /**
   * The bounds the splits on the way leave partition {@code id} of a span numbering: from its
   * first table's {@code low} and {@code high}, each cut becomes the low bound of the half split
   * off and the high bound of the half that stayed.
   */
  static <T> Bounds<T> bounds(int id, int base, long modulus, List<Bytes> cuts, T low, T high,
      java.util.function.Function<Bytes, T> position) {
    checkId(id, modulus);
    for (int k = 0; k < cuts.size(); k++) {
      if (splitOff(id, base, k)) {
        low = position.apply(cuts.get(k));
      } else {
        high = position.apply(cuts.get(k));
      }
    }
    return new Bounds<>(low, high);
  }

  static void checkGeneration(long generation) {
    if (generation < 0) {
      throw new IllegalArgumentException("a generation counts merges, got " + generation);
    }
  }

  /**
   * Checks that partition {@code id} at {@code modulus} was split off or kept by a split (so it
   * has a sibling to merge with), and that the merge's generation passes the numbering's.
   */
  static void checkMerge(int id, int base, long modulus, long generation, long merged) {
    checkId(id, modulus);
    if (modulus <= base) {
      throw new IllegalArgumentException("partition " + id + " is one of the first table's "
          + base + ": no split made it, so it has no sibling to merge with");
    }
    if (merged <= generation) {
      throw new IllegalArgumentException("a merge's generation " + merged
          + " must pass the numbering's " + generation);
    }
  }

  /** The generation for {@link Numbering#describe}: nothing for a table never merged. */
  static String describeGeneration(long generation) {
    return generation == 0 ? "" : " (generation " + generation + ")";
  }

  static List<Bytes> plus(List<Bytes> cuts, Bytes cut) {
    List<Bytes> more = new ArrayList<>(cuts.size() + 1);
    more.addAll(cuts);
    more.add(cut);
    return more;
  }
}
