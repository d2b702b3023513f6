package io.partkit.bench;

import io.partkit.bench.BenchResult.SkewRow;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import io.partkit.strategy.range.RangeSplits;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

/**
 * Skewed and sequential keys on hash strategies against {@code range}: where the keys of a real
 * workload land, not where uniform keys would.
 *
 * <p>Every subject is fed the same keys in the same order, in {@link #BATCHES} batches, on
 * {@link #NODES} equal nodes at RF 1. The {@code range} subjects that split re-plan after each
 * batch: {@link RangeSplits} with the measured size of each range and its median key (what a
 * store reports), splitting a range above {@code keys / (4 * nodes)} keys and merging
 * same-node neighbours below a quarter of that, until a plan changes nothing; the strategy then
 * places the new ranges (a split keeps both halves in place, placement may then move one). The
 * hash subjects need no re-plan: their placement ignores the keys.
 *
 * <p>Measured on the final keys, by routing every real key through the subject's table (no
 * sampling, no hash-line shares): keys per node (max/avg, relative standard deviation), and scan
 * cost: how many partitions and nodes a scan of {@link #SCAN_KEYS} keys consecutive in byte order
 * touches, averaged over {@link #SCANS} seeded start positions.
 */
final class SkewBench {

  static final int NODES = 10;
  static final int BATCHES = 10;
  static final int SCAN_KEYS = 100;
  static final int SCANS = 1_000;
  /** Rounds of splitting per batch at most: one round splits a range at most once. */
  private static final int MAX_ROUNDS = 12;

  /** A workload: its keys in insertion order. */
  record Workload(String name, String description, byte[][] keys) {}

  private SkewBench() {}

  /** The workloads, {@code count} keys each, from {@code seed}. */
  static List<Workload> workloads(int count, long seed) {
    byte[][] sequential = new byte[count][];
    for (int i = 0; i < count; i++) {
      sequential[i] = ByteBuffer.allocate(Long.BYTES).putLong(i).array();
    }
    // Zipf(1.0) over 1000 tenants, each tenant's keys increasing: a few tenants take most keys
    int[] tenants = Keys.zipfRanks(seed, 1_000, count, 1.0);
    int[] next = new int[1_000];
    byte[][] tenant = new byte[count][];
    for (int i = 0; i < count; i++) {
      int t = tenants[i];
      tenant[i] = String.format(Locale.ROOT, "tenant-%04d/%08d", t, next[t]++)
          .getBytes(StandardCharsets.UTF_8);
    }
    Random random = new Random(seed);
    byte[][] uniform = new byte[count][];
    for (int i = 0; i < count; i++) {
      uniform[i] = ByteBuffer.allocate(Long.BYTES).putLong(random.nextLong()).array();
    }
    return List.of(
        new Workload("sequential", "8-byte big-endian counters 0, 1, 2, ... in order (ids, "
            + "timestamps)", sequential),
        new Workload("tenant-zipf", "\"tenant-NNNN/seq\" strings, tenants Zipf(1.0) over 1000,"
            + " each tenant's sequence increasing", tenant),
        new Workload("uniform", "uniformly random 8-byte keys (the control)", uniform));
  }

  /** A subject of this section: a strategy and options, and whether it re-plans splits. */
  record SkewSubject(String name, String strategy, PartitionerConfig config, boolean splits) {}

  static List<SkewSubject> subjects(int partitions) {
    return List.of(
        new SkewSubject("fixed", "fixed", PartitionerConfig.of("partitions", partitions), false),
        new SkewSubject("tokenring-allocator", "tokenring",
            PartitionerConfig.of("tokens", "allocator", "vnodes", 16), false),
        new SkewSubject("range, 16 even, no splits", "range",
            PartitionerConfig.of("partitions", 16), false),
        new SkewSubject("range, 16 even, splits", "range",
            PartitionerConfig.of("partitions", 16), true),
        new SkewSubject("range, 1 range, splits", "range",
            PartitionerConfig.of("partitions", 1), true));
  }

  /**
   * Measures every workload on every subject; a subject that cannot be created (its strategy
   * missing) is reported in {@code problems} and skipped.
   */
  static List<SkewRow> run(int keys, int partitions, long seed, Partitioners partitioners,
      List<String> problems) {
    MembershipView view = MembershipView.ofEqualNodes("node-", NODES);
    List<SkewRow> rows = new ArrayList<>();
    List<Workload> workloads = workloads(keys, seed);
    for (SkewSubject s : subjects(partitions)) {
      Partitioner p;
      try {
        p = partitioners.create(s.strategy(), s.config());
      } catch (RuntimeException e) {
        problems.add("skewed keys, " + s.name() + ": not measured: " + e.getMessage());
        continue;
      }
      for (Workload w : workloads) {
        rows.add(measure(w, s, p, view, seed));
      }
    }
    return rows;
  }

  static SkewRow measure(Workload w, SkewSubject s, Partitioner p, MembershipView view,
      long seed) {
    byte[][] keys = w.keys();
    PartitionAssignment table = p.assign(view);
    int splits = 0;
    int merges = 0;
    if (s.splits()) {
      RangeSplits planner = RangeSplits.of(Math.max(2, keys.length / (4.0 * view.size())),
          Double.POSITIVE_INFINITY, keys.length / (16.0 * view.size()));
      for (int b = 1; b <= BATCHES; b++) {
        byte[][] inserted = Arrays.copyOf(keys, (int) ((long) keys.length * b / BATCHES));
        Arrays.sort(inserted, Arrays::compareUnsigned);
        for (int round = 0; round < MAX_ROUNDS; round++) {
          RangeSplits.Plan plan = plan(planner, table, inserted);
          if (!plan.changed()) {
            break;
          }
          splits += plan.splits();
          merges += plan.merges();
          long epoch = table.epoch() + 1; // the split table's, then the placement's
          table = p.place(view, Optional.of(plan.table().withEpoch(epoch)), 1)
              .withEpoch(epoch + 1);
        }
      }
    }
    long[] perNode = new long[view.size()];
    for (byte[] key : keys) {
      perNode[view.indexOf(table.primaryOf(key))]++;
    }
    double avg = (double) keys.length / view.size();
    double max = 0;
    double squares = 0;
    for (long c : perNode) {
      max = Math.max(max, c);
      squares += (c - avg) * (c - avg);
    }
    byte[][] sorted = keys.clone();
    Arrays.sort(sorted, Arrays::compareUnsigned);
    Random random = new Random(seed);
    int scanKeys = Math.min(SCAN_KEYS, sorted.length);
    long partitionsTouched = 0;
    long nodesTouched = 0;
    for (int i = 0; i < SCANS; i++) {
      int start = random.nextInt(sorted.length - scanKeys + 1);
      Set<Integer> parts = new HashSet<>();
      Set<NodeId> nodes = new HashSet<>();
      for (int k = start; k < start + scanKeys; k++) {
        int part = table.partitionOf(sorted[k]);
        parts.add(part);
        nodes.add(table.primary(part));
      }
      partitionsTouched += parts.size();
      nodesTouched += nodes.size();
    }
    String note = table.scheme() instanceof KeyRanges ? "" : "hash: placement ignores the keys";
    return new SkewRow(w.name(), s.name(), view.size(), keys.length, table.partitionCount(),
        splits, merges, max / avg, Math.sqrt(squares / view.size()) / avg, scanKeys,
        (double) partitionsTouched / SCANS, (double) nodesTouched / SCANS, note);
  }

  /** One plan from the sizes and median keys of the inserted keys (sorted) under the table. */
  private static RangeSplits.Plan plan(RangeSplits planner, PartitionAssignment table,
      byte[][] sorted) {
    KeyRanges ranges = (KeyRanges) table.scheme();
    int count = ranges.partitionCount();
    int[] start = new int[count + 1];
    for (int q = 1; q < count; q++) {
      start[q] = firstAtOrAbove(sorted, ranges.lowerBound(q));
    }
    start[count] = sorted.length;
    double[] sizes = new double[count];
    List<byte[]> medians = new ArrayList<>(count);
    for (int q = 0; q < count; q++) {
      int size = start[q + 1] - start[q];
      sizes[q] = size;
      medians.add(size < 2 ? null : sorted[start[q] + size / 2]);
    }
    return planner.plan(table, PartitionLoads.of(table.epoch(), sizes), medians);
  }

  private static int firstAtOrAbove(byte[][] sorted, byte[] key) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(sorted[mid], key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
