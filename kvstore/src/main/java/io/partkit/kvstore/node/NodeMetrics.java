package io.partkit.kvstore.node;

import static java.util.concurrent.TimeUnit.NANOSECONDS;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.load.HotKeys;
import io.partkit.kvstore.load.NodeLoad;
import io.partkit.kvstore.load.PartitionLoad;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.spi.NodeId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node's meters, per partition and per node, on the {@link MeterRegistry} it was given, and
 * its hot-key sketch; the source of its {@code LOAD} answer ({@link NodeLoad}).
 *
 * <p>The request path allocates no tags and looks up no meter: a partition's meters are built
 * once, the first time the node serves it, and kept in its {@link NodePartition}; a served
 * request then adds to a few counters (timers' count, total and maximum, byte counters) and
 * counts its key in the sketch. Meters of a partition the node stops serving (dropped after a
 * move, demoted to a backup, renumbered by a split) are removed from the registry at the next
 * administrative request ({@link #forgetGone}), so a node that moved many partitions does not
 * keep a meter for each.
 *
 * <p>Meter names and tags (every meter has {@code node}):
 * <ul>
 *   <li>{@value #PARTITION_REQUESTS} (timer; {@code partition}, {@code op}: get, put, cas):
 *       requests served and the time to serve them;
 *   <li>{@value #PARTITION_BYTES} (counter; {@code partition}, {@code direction}: in, out): key
 *       and value bytes carried in by requests, value bytes carried out by answers;
 *   <li>{@value #PARTITION_KEYS} (gauge; {@code partition}): keys held;
 *   <li>{@value #NODE_REQUESTS}, {@value #NODE_BYTES}, {@value #NODE_KEYS}: the same for the
 *       whole node, which stay when partitions leave;
 *   <li>{@value #NODE_PARTITIONS} (gauge): partitions metered;
 *   <li>{@value #NODE_HOT_KEY_SHARE} (gauge): the share of the node's requests the hottest key
 *       certainly took (the sketch's lower bound), 0 when no key stands out; the keys themselves
 *       are in the {@code LOAD} answer, not in tags, which would have no bound;
 *   <li>{@value #NODE_RECEIVED_ENTRIES}, {@value #NODE_RECEIVED_BYTES}, {@value
 *       #NODE_RECEIVED_PARTITIONS} (function counters): what the node received from others to
 *       create copies it did not hold, as its {@code RECEIVED} answer counts it.
 * </ul>
 */
final class NodeMetrics implements AutoCloseable {

  static final String PARTITION_REQUESTS = "partkit.kv.partition.requests";
  static final String PARTITION_BYTES = "partkit.kv.partition.bytes";
  static final String PARTITION_KEYS = "partkit.kv.partition.keys";
  static final String NODE_REQUESTS = "partkit.kv.node.requests";
  static final String NODE_BYTES = "partkit.kv.node.bytes";
  static final String NODE_KEYS = "partkit.kv.node.keys";
  static final String NODE_PARTITIONS = "partkit.kv.node.partitions";
  static final String NODE_HOT_KEY_SHARE = "partkit.kv.node.hot.key.share";
  static final String NODE_RECEIVED_ENTRIES = "partkit.kv.node.received.entries";
  static final String NODE_RECEIVED_BYTES = "partkit.kv.node.received.bytes";
  static final String NODE_RECEIVED_PARTITIONS = "partkit.kv.node.received.partitions";

  /** The data operations, as indexes into the meters. */
  static final int GET = 0;
  static final int PUT = 1;
  static final int CAS = 2;
  private static final String[] OP_TAGS = {"get", "put", "cas"};

  /** How long one hot-key window lasts by default. */
  static final Duration DEFAULT_HOT_KEY_WINDOW = Duration.ofMinutes(1);

  private final boolean enabled;
  private final NodeId node;
  private final MeterRegistry registry;
  private final Map<Integer, NodePartition> parts;
  private final HotKeys hotKeys;
  private final Timer[] nodeRequests = new Timer[3];
  private final Counter nodeBytesIn;
  private final Counter nodeBytesOut;
  private final List<Meter> nodeMeters = new ArrayList<>();
  /** Every partition's meters now registered. */
  private final Set<PartitionMeters> metered = ConcurrentHashMap.newKeySet();
  /**
   * Orders {@link #attach} and {@link #forgetGone}, which decide on a partition's (volatile)
   * state under it, never under the partition's own lock: forgetGone runs after every
   * administrative request, of any partition, and a write waiting on a silent backup holds its
   * partition's lock for up to the replica timeout. Under the partitions' locks, the answer to
   * a shrink of one partition would wait for a write of another to time out, and the
   * coordinator's review would wait for that answer.
   */
  private final Object metering = new Object();

  private NodeMetrics(boolean enabled, NodeId node, MeterRegistry registry,
      Map<Integer, NodePartition> parts, Duration hotKeyWindow) {
    this.enabled = enabled;
    this.node = node;
    this.registry = registry;
    this.parts = parts;
    this.hotKeys = new HotKeys(hotKeyWindow.toNanos(), System.nanoTime());
    if (!enabled) {
      this.nodeBytesIn = null;
      this.nodeBytesOut = null;
      return;
    }
    Tags tags = Tags.of("node", node.value());
    for (int op = 0; op < OP_TAGS.length; op++) {
      nodeRequests[op] = keep(Timer.builder(NODE_REQUESTS).tags(tags).tag("op", OP_TAGS[op])
          .description("data requests the node served").register(registry));
    }
    nodeBytesIn = keep(Counter.builder(NODE_BYTES).tags(tags).tag("direction", "in")
        .baseUnit("bytes").description("key and value bytes of served requests")
        .register(registry));
    nodeBytesOut = keep(Counter.builder(NODE_BYTES).tags(tags).tag("direction", "out")
        .baseUnit("bytes").description("value bytes of the answers").register(registry));
    keep(Gauge.builder(NODE_KEYS, this, NodeMetrics::keysServed).tags(tags)
        .description("keys held in the partitions the node serves").strongReference(true)
        .register(registry));
    keep(Gauge.builder(NODE_PARTITIONS, metered, Set::size).tags(tags)
        .description("partitions with meters").strongReference(true).register(registry));
    keep(Gauge.builder(NODE_HOT_KEY_SHARE, this, NodeMetrics::hottestShare).tags(tags)
        .description("share of requests the hottest key certainly took").strongReference(true)
        .register(registry));
  }

  /**
   * Meters for node {@code node} on {@code registry}.
   *
   * @param parts the node's partitions (read for the view and the node's key gauge)
   */
  static NodeMetrics on(NodeId node, MeterRegistry registry, Map<Integer, NodePartition> parts,
      Duration hotKeyWindow) {
    return new NodeMetrics(true, node, java.util.Objects.requireNonNull(registry, "registry"),
        parts, hotKeyWindow);
  }

  /**
   * No meters and no sketch: requests cost nothing extra, and the view has key counts only
   * (the benchmark's baseline).
   */
  static NodeMetrics off(NodeId node, Map<Integer, NodePartition> parts) {
    return new NodeMetrics(false, node, null, parts, DEFAULT_HOT_KEY_WINDOW);
  }

  /**
   * Meters of what the node received to create copies, read from {@code received} when the
   * registry is read (nothing is added on the copy path). Nothing when the meters are off.
   */
  void meterReceived(CopiesReceived received) {
    if (!enabled) {
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
    nodeMeters.add(meter);
    return meter;
  }

  /** The time a data request starts, for {@link #served}: 0 when off (no clock read). */
  long start() {
    return enabled ? System.nanoTime() : 0;
  }

  /**
   * Counts a data request, if the node served it: {@code reply} OK, or CAS_FAILED (a
   * compare-and-set that found another value did the work of a read).
   *
   * @param op {@link #GET}, {@link #PUT} or {@link #CAS}
   * @param bytesIn the key and value bytes the request carried
   * @param start what {@link #start} returned before the request was handled
   */
  void served(NodePartition part, int op, byte[] key, long bytesIn, KvReply reply, long start) {
    if (!enabled) {
      return;
    }
    Status status = reply.status();
    if (status != Status.OK && status != Status.CAS_FAILED) {
      return;
    }
    long now = System.nanoTime();
    long nanos = now - start;
    byte[] value = reply.value();
    long bytesOut = value == null ? 0 : value.length;
    PartitionMeters m = part.meters;
    if (m == null && (m = attach(part)) == null) {
      return; // no longer served (a move or split in between): not this partition's load
    }
    m.requests[op].record(nanos, NANOSECONDS);
    m.bytesIn.increment(bytesIn);
    m.bytesOut.increment(bytesOut);
    nodeRequests[op].record(nanos, NANOSECONDS);
    nodeBytesIn.increment(bytesIn);
    nodeBytesOut.increment(bytesOut);
    hotKeys.offer(part.id, key, now);
  }

  /** Whether meters of a partition in this state are kept: it serves, or may again (fenced). */
  private static boolean serving(PartitionState state) {
    return state == PartitionState.OWNED || state == PartitionState.MIGRATING_OUT;
  }

  /** Builds the partition's meters, once; null if it no longer serves. */
  private PartitionMeters attach(NodePartition part) {
    synchronized (metering) { // forgetGone decides under the same lock: no meter outlives its part
      if (part.meters == null && serving(part.state) && parts.get(part.id) == part) {
        PartitionMeters m = new PartitionMeters(part);
        part.meters = m;
        metered.add(m);
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
    if (!enabled) {
      return;
    }
    synchronized (metering) {
      for (PartitionMeters m : metered) {
        NodePartition part = m.part;
        // The state is read after the request that changed it released the partition's lock
        // (volatile): a partition that stopped serving is seen so. One that attaches meters
        // meanwhile does it under this lock, after this decision, and reads its state again.
        if (!serving(part.state) || parts.get(part.id) != part) {
          part.meters = null;
          metered.remove(m);
          m.remove();
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
        PartitionMeters m = part.meters;
        long keys = part.data.size();
        load = m == null
            ? new PartitionLoad(part.id, part.state, part.visibleEpoch(), keys, 0, 0, 0, 0, 0, 0,
                0, 0)
            : m.load(part.state, part.visibleEpoch(), keys, now);
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
    if (!enabled) {
      return new NodeLoad(node, loads, 0, 0, List.of());
    }
    HotKeys.Report hot = hotKeys.report();
    return new NodeLoad(node, loads, hot.requests(), hot.maximumError(), hot.hottest());
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

  private double hottestShare() {
    HotKeys.Report hot = hotKeys.report();
    return hot.hottest().isEmpty() || hot.requests() == 0 ? 0
        : (double) hot.hottest().get(0).lowerBound() / hot.requests();
  }

  /** Removes every meter of this node from the registry (the node is closing). */
  @Override
  public void close() {
    if (!enabled) {
      return;
    }
    for (PartitionMeters m : metered) {
      m.remove();
    }
    metered.clear();
    for (Meter meter : nodeMeters) {
      registry.remove(meter);
    }
  }

  /** One partition's meters, built once when the node first serves it. */
  final class PartitionMeters {
    final NodePartition part;
    final Timer[] requests = new Timer[3];
    final Counter bytesIn;
    final Counter bytesOut;
    private final Gauge keys;
    private final long created = System.nanoTime();

    PartitionMeters(NodePartition part) {
      this.part = part;
      Tags tags = Tags.of("node", node.value(), "partition", Integer.toString(part.id));
      for (int op = 0; op < OP_TAGS.length; op++) {
        requests[op] = Timer.builder(PARTITION_REQUESTS).tags(tags).tag("op", OP_TAGS[op])
            .description("data requests served for the partition").register(registry);
      }
      bytesIn = Counter.builder(PARTITION_BYTES).tags(tags).tag("direction", "in")
          .baseUnit("bytes").description("key and value bytes of served requests")
          .register(registry);
      bytesOut = Counter.builder(PARTITION_BYTES).tags(tags).tag("direction", "out")
          .baseUnit("bytes").description("value bytes of the answers").register(registry);
      // unlocked size(): an int field, at worst a moment out of date
      keys = Gauge.builder(PARTITION_KEYS, part, p -> p.data.size()).tags(tags)
          .description("keys held in the partition").strongReference(true).register(registry);
    }

    PartitionLoad load(PartitionState state, long epoch, long keyCount, long now) {
      long total = 0;
      long max = 0;
      for (Timer t : requests) {
        total += (long) t.totalTime(NANOSECONDS);
        max = Math.max(max, (long) t.max(NANOSECONDS));
      }
      return new PartitionLoad(part.id, state, epoch, keyCount, Math.max(1, now - created),
          requests[GET].count(), requests[PUT].count(), requests[CAS].count(),
          (long) bytesIn.count(), (long) bytesOut.count(), total, max);
    }

    void remove() {
      for (Timer t : requests) {
        registry.remove(t);
      }
      registry.remove(bytesIn);
      registry.remove(bytesOut);
      registry.remove(keys);
    }
  }
}
