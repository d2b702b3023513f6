package io.partkit.replica.node.load;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The load view of every node of one table, read by a client ({@link
 * io.partkit.replica.node.ReplicaClient#load()}): what the coordinator reads to plan by load
 * ({@link #partitionLoads}). A partition's figures are its primary's, by {@link #table()}:
 * clients send every request of a partition to its primary, and backups apply the primary's
 * writes without serving requests of their own.
 *
 * @param table the table the nodes were asked for (its epoch ties the loads to it)
 * @param nodes each node's view, in the order of the table's nodes
 */
public record ClusterLoad(PartitionAssignment table, List<NodeLoad> nodes) {

  /** Canonical constructor. */
  public ClusterLoad {
    requireNonNull(table, "table");
    nodes = List.copyOf(nodes);
  }

  /** The view of {@code node}, if it was read. */
  public Optional<NodeLoad> node(NodeId node) {
    return nodes.stream().filter(n -> n.node().equals(node)).findFirst();
  }

  /**
   * What partition {@code partition}'s primary measured of it; an empty load (all counts 0) when
   * the primary has not served it since it started or took it over.
   *
   * @throws IllegalStateException if the primary's view was not read, or the primary holds the
   *     partition under a newer epoch than the table's (the table is out of date: read again
   *     with a fresh one)
   */
  public PartitionLoad partition(int partition) {
    NodeId primary = table.primary(partition);
    NodeLoad view = node(primary).orElseThrow(() -> new IllegalStateException("no load view of "
        + primary + ", the primary of partition " + partition + " at epoch " + table.epoch()));
    Optional<PartitionLoad> load = view.partition(partition);
    if (load.isPresent() && load.get().epoch() > table.epoch()) {
      throw new IllegalStateException(primary + " holds partition " + partition + " at epoch "
          + load.get().epoch() + ", newer than the table's " + table.epoch()
          + ": read the load again with a fresh table");
    }
    return load.orElseGet(() -> new PartitionLoad(partition, PartitionLoad.ABSENT, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0));
  }

  /**
   * Every partition's load under {@link #table()}, by {@code measure}. Rates are averages over
   * each partition's whole count ({@link PartitionLoad#measuredNanos()}), which a long-lived
   * node smooths over hours; {@link #partitionLoadsSince} gives the rate between two readings.
   *
   * @throws IllegalStateException as {@link #partition}
   */
  public PartitionLoads partitionLoads(LoadMeasure measure) {
    requireNonNull(measure, "measure");
    double[] loads = new double[table.partitionCount()];
    for (int p = 0; p < loads.length; p++) {
      PartitionLoad load = partition(p);
      loads[p] = switch (measure) {
        case OPS_PER_SECOND -> load.opsPerSecond();
        case BYTES_PER_SECOND -> load.bytesPerSecond();
        case KEYS -> load.keys();
      };
    }
    return PartitionLoads.of(table.epoch(), loads);
  }

  /**
   * Every partition's load between {@code earlier} and this reading: the rate of what was served
   * in between (for {@link LoadMeasure#KEYS}, the keys held now). A partition whose counts
   * started again in between (its primary restarted) is rated over its new count alone.
   *
   * @throws IllegalArgumentException if {@code earlier} was read under another table epoch
   *     (partition numbers and owners may differ)
   * @throws IllegalStateException as {@link #partition}
   */
  public PartitionLoads partitionLoadsSince(ClusterLoad earlier, LoadMeasure measure) {
    requireNonNull(earlier, "earlier");
    requireNonNull(measure, "measure");
    if (earlier.table.epoch() != table.epoch()) {
      throw new IllegalArgumentException("load readings under table epochs "
          + earlier.table.epoch() + " and " + table.epoch() + " cannot be compared: read both"
          + " under one table");
    }
    double[] loads = new double[table.partitionCount()];
    for (int p = 0; p < loads.length; p++) {
      PartitionLoad now = partition(p);
      PartitionLoad then = earlier.partition(p);
      if (measure == LoadMeasure.KEYS) {
        loads[p] = now.keys();
        continue;
      }
      boolean sameCount = then.measuredNanos() > 0 && now.measuredNanos() > then.measuredNanos()
          && now.ops() >= then.ops();
      long nanos = sameCount ? now.measuredNanos() - then.measuredNanos() : now.measuredNanos();
      double amount = measure == LoadMeasure.OPS_PER_SECOND
          ? (sameCount ? now.ops() - then.ops() : now.ops())
          : (sameCount ? now.bytesIn() + now.bytesOut() - then.bytesIn() - then.bytesOut()
              : now.bytesIn() + now.bytesOut());
      loads[p] = nanos <= 0 ? 0 : Math.max(0, amount) * 1e9 / nanos;
    }
    return PartitionLoads.of(table.epoch(), loads);
  }

  /**
   * Every partition's split key under {@link #table()}, as its primary reported it ({@link
   * PartitionLoad#splitKey()}: the median key of its data), null where none is known (an empty
   * partition, an older node, a node that does not report one). With {@code
   * partitionLoads(LoadMeasure.KEYS)} this is what {@code RangeSplits.plan(table, sizes,
   * splitKeys)} takes for a table over key ranges:
   * <pre>{@code
   * ClusterLoad load = client.load();
   * RangeSplits.Plan plan = RangeSplits.of(maxKeys, Double.POSITIVE_INFINITY, maxKeys / 4)
   *     .plan(load.table(), load.partitionLoads(LoadMeasure.KEYS), load.splitKeys());
   * }</pre>
   * (the load view does not depend on {@code strategy-range}: plain data is the meeting point).
 * A replica node's table is read here by the core's numbers; a coordinator over the cores
 * reads the same figures by its own table's partitions ({@link PartitionSizes}).
   *
   * @return one entry per partition, in partition order, nulls included; unmodifiable
   * @throws IllegalStateException as {@link #partition}
   */
  public List<byte[]> splitKeys() {
    List<byte[]> keys = new ArrayList<>(table.partitionCount());
    for (int p = 0; p < table.partitionCount(); p++) {
      keys.add(partition(p).splitKey());
    }
    return Collections.unmodifiableList(keys);
  }
}
