package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.coordinator.ClusterCoordinator;
import io.partkit.coordinator.Coordinators;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.replica.Bytes;
import io.partkit.replica.Numbering;
import io.partkit.replica.Replica;
import io.partkit.replica.Role;
import io.partkit.replica.node.load.PartitionSizes;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@code range} coordinator that splits ranges and then merges them again, under writes, on
 * replica-core node processes ({@link ReplicaMigrationExecutor}): the merges commit, the core
 * stays finer than the coordinator (its partitions under a merged range all on that range's
 * replicas), a merged range then moves to a joiner as one, and every acknowledged write reads
 * back. Each step waits until every node's copies sit where the committed table says.
 */
class CoordinatedMergeClusterTest {

  final CoordinatedSplitClusterTest splits = new CoordinatedSplitClusterTest();
  final CoordinatedClusterTest nodes = splits.nodes;
  final ReplicaClusterTest cluster = splits.cluster;

  @AfterEach
  void stop() throws Exception {
    splits.stop();
  }

  /**
   * The {@code range} strategy's first table; then its previous table re-cut: {@link #cut}
   * added when no split key yet, {@link #drop} removed when one (the merged range keeping the
   * lower one's replicas, as {@code RangeSplits} merges ranges on the same replicas), every row
   * kept but the first range's, which becomes {@link #first} when set. Rows chosen here, not by
   * the count balancer, so the ranges to merge are on one row, as a merge needs.
   */
  static final class ReCutRange extends WrappedStrategy {
    volatile byte[] cut;
    volatile List<byte[]> drop = List.of();
    volatile List<NodeId> first;

    ReCutRange(PartitionerConfig config) {
      super(Partitioners.load().create("range", config));
    }

    @Override
    public PartitionAssignment place(MembershipView view, Optional<PartitionAssignment> previous,
        int replicas) {
      if (previous.isEmpty() || !(previous.get().scheme() instanceof KeyRanges)) {
        return strategy.place(view, previous, replicas);
      }
      KeyRanges ranges = (KeyRanges) previous.get().scheme();
      List<List<NodeId>> rows = new ArrayList<>(previous.get().replicaTable());
      byte[] at = cut;
      if (at != null && indexOf(ranges, at) < 0) {
        int p = ranges.partitionOfKey(at);
        rows.add(p + 1, rows.get(p));
        ranges = ranges.withSplit(p, at);
      }
      for (byte[] key : drop) {
        int i = indexOf(ranges, key);
        if (i >= 0) {
          rows.remove(i + 1);
          ranges = ranges.withoutSplit(i);
        }
      }
      if (first != null) {
        rows.set(0, first);
      }
      return PartitionAssignment.of(strategy.name(), 0, view.version(), ranges, rows);
    }

    private static int indexOf(KeyRanges ranges, byte[] key) {
      List<byte[]> keys = ranges.splits();
      for (int i = 0; i < keys.size(); i++) {
        if (Arrays.equals(keys.get(i), key)) {
          return i;
        }
      }
      return -1;
    }
  }

  /**
   * What keeps the nodes from holding {@code committed}: the control's table unsettled or not
   * as fine, a core partition whose primary or whose copies (the nodes listing it as primary or
   * backup) are not the row of the coordinator partition holding it; null when they hold it.
   */
  String misplaced(ReplicaClient c, PartitionAssignment committed) throws IOException {
    ReplicaClient.Table t = c.table();
    if (!t.settled()) {
      return "unsettled: " + t.unsettled();
    }
    SortedMap<Integer, Numbering> numberings = new TreeMap<>();
    for (ReplicaClient.Row r : t.rows()) {
      numberings.put(r.partition(), r.numbering());
    }
    SpanMap map;
    try {
      map = SpanMap.of(committed.scheme(), numberings);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    TreeMap<Integer, TreeSet<Integer>> copies = new TreeMap<>();
    for (int n = 0; n < CoordinatedClusterTest.NODES; n++) {
      for (Replica.Status s : c.partitions(n)) {
        if (s.role() != Role.ABSENT) {
          copies.computeIfAbsent(s.partition(), p -> new TreeSet<>()).add(n);
        }
      }
    }
    for (ReplicaClient.Row r : t.rows()) {
      int i = map.index(r.partition());
      TreeSet<Integer> want = new TreeSet<>();
      committed.replicas(i).forEach(id -> want.add(CoordinatedClusterTest.number(id)));
      int primary = CoordinatedClusterTest.number(committed.primary(i));
      if (r.primary() != primary || !want.equals(copies.get(r.partition()))) {
        return "core partition " + r.partition() + " in coordinator partition " + i + " is led by "
            + r.primary() + " with copies on " + copies.get(r.partition()) + ", committed "
            + committed.replicas(i);
      }
    }
    return null;
  }

  void awaitPlaced(ReplicaClient c, PartitionAssignment committed) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    String why = "not read";
    while (System.nanoTime() < deadline) {
      try {
        why = misplaced(c, committed);
      } catch (IOException e) {
        why = "a node or the control did not answer: " + e;
      }
      if (why == null) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the nodes do not hold the committed table at epoch "
        + committed.epoch() + " (" + committed.scheme() + "): " + why);
  }

  @Test
  void aKeyRangeMergeKeepsTheCoreFinerAndMovesTheMergedRangeAsOneUnderWrites()
      throws Exception {
    nodes.startNodes();
    MetadataStore store = MetadataStores.embedded();
    ReplicaMigrationExecutor executor = splits.executor(store, "merge");
    ReCutRange range = new ReCutRange(PartitionerConfig.of("partitions", 4, "replicas", 2));
    ClusterCoordinator coordinator = Coordinators.builder().store(store).partitioner(range)
        .migrationExecutor(executor).maxConcurrentMigrations(2).build();
    nodes.closing.add(coordinator);
    PartitionAssignment first = splits.firstTable(coordinator);
    ReplicaClient client = splits.clientWithEveryKeyWritten(first);
    byte[] twenty = Bytes.ofLong(20).toArray();
    byte[] thirty = Bytes.ofLong(30).toArray();

    try (CoordinatedSplitClusterTest.Writer writer = splits.new Writer()) {
      // every written key (0..39, 8 big-endian bytes) is in the first range: cut it at 20, then
      // its upper half at 30; each half keeps the range's replicas
      range.cut = twenty;
      coordinator.rebalance();
      range.cut = thirty;
      coordinator.rebalance();
      PartitionAssignment cut = coordinator.table().orElseThrow();
      assertThat(cut.partitionCount()).isEqualTo(6);
      splits.awaitMatches(client, cut);
      awaitPlaced(client, cut);
      assertThat(cut.replicas(1)).as("the halves on one row").isEqualTo(cut.replicas(2))
          .isEqualTo(cut.replicas(0));

      // merge back the two halves of the second cut: the core keeps both
      range.cut = null;
      range.drop = List.of(thirty);
      coordinator.rebalance();
      PartitionAssignment merged = coordinator.table().orElseThrow();
      assertThat(merged.partitionCount()).isEqualTo(5);
      assertThat(merged.scheme().partitionOfLongKey(35)).as("30.. merged into 20..")
          .isEqualTo(1);
      awaitPlaced(client, merged);
      assertThat(client.table().partitions()).as("the core stays finer").isEqualTo(6);

      // then ranges that are no two halves of one split: 0..20 with 20.. (three core
      // partitions under one range)
      range.drop = List.of(twenty);
      coordinator.rebalance();
      PartitionAssignment all = coordinator.table().orElseThrow();
      assertThat(all.partitionCount()).isEqualTo(4);
      assertThat(all.scheme().partitionOfLongKey(5)).isEqualTo(all.scheme()
          .partitionOfLongKey(35));
      awaitPlaced(client, all);
      SpanMap map = SpanMap.of(all.scheme(), numberings(client.table()));
      assertThat(map.cores(0)).as("the merged range's core partitions").hasSize(3);
      // its size for a split: the keys of all three, cut at the median of the largest
      // (0..19 of [, 20); 20..29 and 30..39 hold ten keys each)
      PartitionSizes sizes = sizes(executor, all);
      assertThat(sizes.keys().load(0)).isEqualTo(ReplicaClusterTest.KEYS);
      assertThat(sizes.splitKeys().get(0)).isEqualTo(Bytes.ofLong(10).toArray());
      for (int p = 1; p < all.partitionCount(); p++) {
        assertThat(sizes.keys().load(p)).as("range %d", p).isZero();
        assertThat(sizes.splitKeys().get(p)).as("range %d", p).isNull();
      }

      // a fourth node joins and leads the merged range: every core partition under it moves
      List<NodeId> was = all.replicas(0);
      range.first = List.of(CoordinatedClusterTest.id(3), was.get(0));
      coordinator.join(nodes.member(3));
      coordinator.rebalance();
      PartitionAssignment joined = coordinator.table().orElseThrow();
      assertThat(joined.replicas(0)).isEqualTo(range.first);
      awaitPlaced(client, joined);
      assertThat(client.table().route(5).orElseThrow().primary()).isEqualTo(3);
      assertThat(client.table().route(35).orElseThrow().primary()).isEqualTo(3);

      // and a cut again at 30, a boundary the core kept: no core split
      range.cut = thirty;
      coordinator.rebalance();
      PartitionAssignment again = coordinator.table().orElseThrow();
      assertThat(again.partitionCount()).isEqualTo(5);
      awaitPlaced(client, again);
      assertThat(client.table().partitions()).as("no split made twice").isEqualTo(6);
    }
    cluster.readAll(client);
  }

  /** The executor's sizes of {@code table}, asked again while a change is under way. */
  private static PartitionSizes sizes(ReplicaMigrationExecutor executor,
      PartitionAssignment table) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        return executor.sizes(table);
      } catch (IllegalStateException | IOException e) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("no sizes of the table at epoch " + table.epoch(), e);
        }
        Thread.sleep(100);
      }
    }
  }

  private static SortedMap<Integer, Numbering> numberings(ReplicaClient.Table t) {
    SortedMap<Integer, Numbering> n = new TreeMap<>();
    t.rows().forEach(r -> n.put(r.partition(), r.numbering()));
    return n;
  }
}
