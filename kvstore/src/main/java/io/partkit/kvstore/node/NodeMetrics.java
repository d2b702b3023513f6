package io.partkit.kvstore.node;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.replica.node.load.LoadMeters.Op;
import io.partkit.replica.node.load.LoadMeters;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.spi.NodeId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node's meters, per partition and per node, on the {@link MeterRegistry} it was given, and
 * its hot-key sketch, counted by the {@link LoadMeters} both stores' nodes share (which names
 * them); the source of its {@code LOAD} answer ({@link NodeLoad}). This class decides what the
 * kvstore node counts and when a partition's meters come and go.
 *
 * <p>A partition's meters are built once, the first time the node serves it, and kept in its
 * {@link NodePartition}, so the request path looks up no meter. Meters of a partition the node
 * stops serving (dropped after a move, demoted to a backup, renumbered by a split) are removed
 * from the registry at the next administrative request ({@link #forgetGone}), so a node that
 * moved many partitions does not keep a meter for each.
 *
 * <p>Beside {@link LoadMeters}' meters (ops get, put, cas), every meter with the tag {@code
 * node}: {@value #NODE_RECEIVED_ENTRIES}, {@value #NODE_RECEIVED_BYTES}, {@value
 * #NODE_RECEIVED_PARTITIONS} (function counters): what the node received from others to create
 * copies it did not hold, as its {@code RECEIVED} answer counts it.
 */
final class NodeMetrics implements AutoCloseable {

  static final String NODE_RECEIVED_ENTRIES = "partkit.kv.node.received.entries";
  static final String NODE_RECEIVED_BYTES = "partkit.kv.node.received.bytes";
  static final String NODE_RECEIVED_PARTITIONS = "partkit.kv.node.received.partitions";

  /** The data operations the kvstore node meters. */
  private static final Set<Op> OPS = EnumSet.of(Op.GET, Op.PUT, Op.CAS);

  private final NodeId node;
  private final MeterRegistry registry;
  private final Map<Integer, NodePartition> parts;
  /** Null when off. */
  private final LoadMeters meters;
  private final List<Meter> receivedMeters = new ArrayList<>();
  /** Every partition with meters now. */
  private final Set<NodePartition> metered = ConcurrentHashMap.newKeySet();
  /**
   * Orders {@link #attach} and {@link #forgetGone}, which decide on a partition's (volatile)
   * state under it, never under the partition's own lock: forgetGone runs after every
   * administrative request, of any partition, and a write waiting on a silent backup holds its
   * partition's lock for up to the replica timeout. Under the partitions' locks, the answer to
   * a shrink of one partition would wait for a write of another to time out, and the
   * coordinator's review would wait for that answer.
   */
  private final Object metering = new Object();

  private NodeMetrics(NodeId node, MeterRegistry registry, Map<Integer, NodePartition> parts,
      Duration hotKeyWindow) {
    this.node = node;
    this.registry = registry;
    this.parts = parts;
    this.meters = registry == null ? null : new LoadMeters(node, registry, OPS,
        this::keysServed, hotKeyWindow, System.nanoTime());
  }

  /**
   * Meters for node {@code node} on {@code registry}.
   *
   * @param parts the node's partitions (read for the view and the node's key gauge)
   */
  static NodeMetrics on(NodeId node, MeterRegistry registry, Map<Integer, NodePartition> parts,
      Duration hotKeyWindow) {
    return new NodeMetrics(node, java.util.Objects.requireNonNull(registry, "registry"), parts,
        hotKeyWindow);
  }

  /**
   * No meters and no sketch: requests cost nothing extra, and the view has key counts only
   * (the benchmark's baseline).
   */
  static NodeMetrics off(NodeId node, Map<Integer, NodePartition> parts) {
    return new NodeMetrics(node, null, parts, LoadMeters.DEFAULT_HOT_KEY_WINDOW);
  }

  /**
   * Meters of what the node received to create copies, read from {@code received} when the
   * registry is read (nothing is added on the copy path). Nothing when the meters are off.
   */
  void meterReceived(CopiesReceived received) {
    if (meters == null) {
      return;
    }
    Tags tags = Tags.of("node", node.value());
    keep(FunctionCounter.builder(NODE_RECEIVED_ENTRIES, received, CopiesReceived::entries)
        .tags(tags).description("entries received from other nodes to create copies")
        .register(registry));
    keep(FunctionCounter.builder(NODE_RECEIVED_BYTES, received, CopiesReceived::bytes)
        .tags(tags).baseUnit("bytes")
        .description("key and value bytes received from other nodes to create copies")
        .register(registry));
    keep(FunctionCounter.builder(NODE_RECEIVED_PARTITIONS, received, CopiesReceived::partitions)
        .tags(tags).description("partition copies completed from other nodes' data")
        .register(registry));
  }

  private <M extends Meter> M keep(M meter) {
    receivedMeters.add(meter);
    return meter;
  }

  /** The time a data request starts, for {@link #served}: 0 when off (no clock read). */
  long start() {
    return meters != null ? System.nanoTime() : 0;
  }

  /**
   * Counts a data request, if the node served it: {@code reply} OK, or CAS_FAILED (a
   * compare-and-set that found another value did the work of a read).
   *
   * @param op {@link Op#GET}, {@link Op#PUT} or {@link Op#CAS}
   * @param bytesIn the key and value bytes the request carried
   * @param start what {@link #start} returned before the request was handled
   */
  void served(NodePartition part, Op op, byte[] key, long bytesIn, KvReply reply, long start) {
    if (meters == null) {
      return;
    }
    Status status = reply.status();
    if (status != Status.OK && status != Status.CAS_FAILED) {
      return;
    }
    long now = System.nanoTime();
    byte[] value = reply.value();
    LoadMeters.Partition m = part.meters;
    if (m == null && (m = attach(part)) == null) {
      return; // no longer served (a move or split in between): not this partition's load
    }
    meters.served(m, op, key, bytesIn, value == null ? 0 : value.length, now - start, now);
  }

  /** Whether meters of a partition in this state are kept: it serves, or may again (fenced). */
  private static boolean serving(PartitionState state) {
    return state == PartitionState.OWNED || state == PartitionState.MIGRATING_OUT;
  }

  /** Builds the partition's meters, once; null if it no longer serves. */
  private LoadMeters.Partition attach(NodePartition part) {
    synchronized (metering) { // forgetGone decides under the same lock: no meter outlives its part
      if (part.meters == null && serving(part.state) && parts.get(part.id) == part) {
        // unlocked size(): an int field, at worst a moment out of date
        part.meters = meters.partition(part.id, () -> part.data.size(), System.nanoTime());
        metered.add(part);
      }
      return part.meters;
    }
  }

  /**
   * Removes the meters of partitions the node no longer serves (dropped, a backup now, or
   * replaced by a split). Called after every administrative request: those are what change a
   * partition's state, and they are rare next to data requests.
   */
  void forgetGone() {
    if (meters == null) {
      return;
    }
    synchronized (metering) {
      for (NodePartition part : metered) {
        // The state is read after the request that changed it released the partition's lock
        // (volatile): a partition that stopped serving is seen so. One that attaches meters
        // meanwhile does it under this lock, after this decision, and reads its state again.
        if (!serving(part.state) || parts.get(part.id) != part) {
          meters.remove(part.meters);
          part.meters = null;
          metered.remove(part);
        }
      }
    }
  }

  /** The node's view: every partition it serves, with its counts, and the hottest keys. */
  NodeLoad view() {
    List<PartitionLoad> loads = new ArrayList<>();
    long now = System.nanoTime();
    for (NodePartition part : parts.values()) {
      PartitionLoad load;
      synchronized (part) {
        if (!serving(part.state)) {
          continue;
        }
        LoadMeters.Partition m = part.meters;
        long keys = part.data.size();
        load = m == null
            ? new PartitionLoad(part.id, part.state.name(), part.visibleEpoch(), keys, 0, 0, 0,
                0, 0, 0, 0, 0)
            : m.load(part.state.name(), part.visibleEpoch(), keys, now);
      }
      loads.add(load);
    }
    for (int i = 0; i < loads.size(); i++) {
      PartitionLoad load = loads.get(i);
      NodePartition part = parts.get(load.partition());
      if (part != null && load.keys() > 0) {
        loads.set(i, load.withSplitKey(medianKey(part)));
      }
    }
    loads.sort(Comparator.comparingInt(PartitionLoad::partition));
    return meters == null ? new NodeLoad(node, loads, 0, 0, List.of())
        : meters.view(node, loads);
  }

  /** Keys a median walk visits under one hold of a partition's lock (see {@link #medianKey}). */
  static final int MEDIAN_CHUNK = 4096;

  /**
   * The partition's median key: the key at index {@code size / 2} of its sorted data, null if
   * it holds none or stopped being served meanwhile.
   *
   * <p>A {@code TreeMap} keeps no subtree sizes, so the only way to the middle is to walk there:
   * O(keys / 2) steps per partition, on every LOAD. That is the cost of an exact median with no
   * extra state on the write path, and LOAD is an administrative request polled seconds apart.
   * It is paid on every LOAD, not only when asked, because the partitions whose split key
   * matters are exactly the large ones, and because asking would change LOAD's request. What
   * must stay bounded is how long writes to the partition wait: the walk takes the partition's
   * lock for {@value #MEDIAN_CHUNK} keys at a time and goes on after the last key it saw, so a
   * write waits at most one chunk (a fraction of a millisecond). Writes between chunks may shift
   * the middle by what they added: the key is a median of the data during the walk, which is
   * all a split key needs (any key strictly inside the range cuts it; the median cuts it even).
   */
  byte[] medianKey(NodePartition part) {
    long remaining; // keys still to pass before the median
    synchronized (part) {
      remaining = part.data.size() / 2;
    }
    byte[] last = null; // the last key passed: the next chunk starts after it
    while (true) {
      synchronized (part) {
        if (!serving(part.state) || parts.get(part.id) != part) {
          return null; // moved, demoted or renumbered by a split meanwhile: not this view's
        }
        NavigableMap<byte[], byte[]> rest = last == null ? part.data
            : part.data.tailMap(last, false);
        int steps = 0;
        for (byte[] key : rest.keySet()) {
          if (remaining == 0) {
            return key;
          }
          remaining--;
          last = key;
          if (++steps == MEDIAN_CHUNK) {
            break;
          }
        }
        if (steps < MEDIAN_CHUNK) {
          return last; // the data ended first (it shrank during the walk): its last key
        }
      }
    }
  }

  private double keysServed() {
    long keys = 0;
    for (NodePartition part : parts.values()) {
      if (serving(part.state)) { // unlocked: a gauge may be a moment out of date
        keys += part.data.size();
      }
    }
    return keys;
  }

  /** Removes every meter of this node from the registry (the node is closing). */
  @Override
  public void close() {
    if (meters == null) {
      return;
    }
    synchronized (metering) {
      for (NodePartition part : metered) {
        part.meters = null;
      }
      metered.clear();
    }
    meters.close();
    for (Meter meter : receivedMeters) {
      registry.remove(meter);
    }
  }
}
