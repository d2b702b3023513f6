package io.partkit.replica.node.load;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.partkit.spi.NodeId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;

/**
 * A node's meters of the requests it serves, per partition and for the whole node, on the {@link
 * MeterRegistry} it was given, and its hot-key sketch ({@link HotKeys}): what both stores' nodes
 * count with, so that their meters have one set of names and one meaning. A node decides what it
 * served and when a partition's meters come and go; this class counts and names.
 *
 * <p>The request path allocates no tags and looks up no meter: a partition's meters are built
 * once ({@link #partition}) and the node keeps them; a served request then adds to a few
 * counters (timers' count, total and maximum, byte counters) and counts its key in the sketch.
 * Thread-safe: Micrometer's meters are, the sketch takes its own monitor.
 *
 * <p>Meter names and tags (every meter has {@code node}):
 * <ul>
 *   <li>{@value #PARTITION_REQUESTS} (timer; {@code partition}, {@code op}: get, put, cas, and
 *       scan where the node meters scans): requests served and the time to serve them;
 *   <li>{@value #PARTITION_BYTES} (counter; {@code partition}, {@code direction}: in, out): key
 *       and value bytes carried in by requests, value bytes (a scan's keys and values) carried
 *       out by answers;
 *   <li>{@value #PARTITION_KEYS} (gauge; {@code partition}): keys held;
 *   <li>{@value #NODE_REQUESTS}, {@value #NODE_BYTES}, {@value #NODE_KEYS}: the same for the
 *       whole node, which stay when partitions leave;
 *   <li>{@value #NODE_PARTITIONS} (gauge): partitions metered;
 *   <li>{@value #NODE_HOT_KEY_SHARE} (gauge): the share of the node's requests the hottest key
 *       certainly took (the sketch's lower bound), 0 when no key stands out; the keys themselves
 *       are in the node's load view ({@link #view}), not in tags, which would have no bound.
 * </ul>
 */
public final class LoadMeters implements AutoCloseable {

  public static final String PARTITION_REQUESTS = "partkit.kv.partition.requests";
  public static final String PARTITION_BYTES = "partkit.kv.partition.bytes";
  public static final String PARTITION_KEYS = "partkit.kv.partition.keys";
  public static final String NODE_REQUESTS = "partkit.kv.node.requests";
  public static final String NODE_BYTES = "partkit.kv.node.bytes";
  public static final String NODE_KEYS = "partkit.kv.node.keys";
  public static final String NODE_PARTITIONS = "partkit.kv.node.partitions";
  public static final String NODE_HOT_KEY_SHARE = "partkit.kv.node.hot.key.share";

  /** How long one hot-key window lasts by default. */
  public static final Duration DEFAULT_HOT_KEY_WINDOW = Duration.ofMinutes(1);

  /** The requests a node may meter, each a value of the {@code op} tag. */
  public enum Op {
    GET("get"), PUT("put"), CAS("cas"), SCAN("scan");

    private final String tag;

    Op(String tag) {
      this.tag = tag;
    }

    /** The value of the {@code op} tag. */
    public String tag() {
      return tag;
    }
  }

  private final String node;
  private final MeterRegistry registry;
  private final Set<Op> ops;
  private final HotKeys hotKeys;
  /** By {@link Op#ordinal()}; null for an op the node does not meter. */
  private final Timer[] nodeRequests = new Timer[Op.values().length];
  private final Counter nodeBytesIn;
  private final Counter nodeBytesOut;
  private final List<Meter> nodeMeters = new ArrayList<>();
  /** Every partition's meters now registered. */
  private final Set<Partition> metered = ConcurrentHashMap.newKeySet();

  /**
   * Registers the node's own meters.
   *
   * @param node the node's id, the {@code node} tag
   * @param ops the requests it meters (a timer each)
   * @param keysServed keys in the partitions it serves, read when the registry reads the gauge
   * @param hotKeyWindow how long one hot-key window lasts
   * @param now the current {@link System#nanoTime()}: the first hot-key window starts there
   */
  public LoadMeters(NodeId node, MeterRegistry registry, Set<Op> ops, DoubleSupplier keysServed,
      Duration hotKeyWindow, long now) {
    this.node = node.value();
    this.registry = requireNonNull(registry, "registry");
    this.ops = EnumSet.copyOf(ops);
    this.hotKeys = new HotKeys(hotKeyWindow.toNanos(), now);
    Tags tags = Tags.of("node", this.node);
    for (Op op : this.ops) {
      nodeRequests[op.ordinal()] = keep(Timer.builder(NODE_REQUESTS).tags(tags)
          .tag("op", op.tag()).description("data requests the node served").register(registry));
    }
    nodeBytesIn = keep(Counter.builder(NODE_BYTES).tags(tags).tag("direction", "in")
        .baseUnit("bytes").description("key and value bytes of served requests")
        .register(registry));
    nodeBytesOut = keep(Counter.builder(NODE_BYTES).tags(tags).tag("direction", "out")
        .baseUnit("bytes").description("value bytes of the answers").register(registry));
    keep(Gauge.builder(NODE_KEYS, keysServed, DoubleSupplier::getAsDouble).tags(tags)
        .description("keys held in the partitions the node serves").strongReference(true)
        .register(registry));
    keep(Gauge.builder(NODE_PARTITIONS, metered, Set::size).tags(tags)
        .description("partitions with meters").strongReference(true).register(registry));
    keep(Gauge.builder(NODE_HOT_KEY_SHARE, this, LoadMeters::hottestShare).tags(tags)
        .description("share of requests the hottest key certainly took").strongReference(true)
        .register(registry));
  }

  private <M extends Meter> M keep(M meter) {
    nodeMeters.add(meter);
    return meter;
  }

  /**
   * Registers the meters of partition {@code id}, whose counts start {@code now} ({@link
   * System#nanoTime()}); {@code keys} is read when the registry reads its gauge. The node keeps
   * them while it serves the partition, and {@link #remove}s them when it stops.
   */
  public Partition partition(int id, DoubleSupplier keys, long now) {
    Partition p = new Partition(id, keys, now);
    metered.add(p);
    return p;
  }

  /** Removes {@code partition}'s meters from the registry: the node no longer serves it. */
  public void remove(Partition partition) {
    if (metered.remove(partition)) {
      partition.remove();
    }
  }

  /** How many partitions have meters. */
  public int partitions() {
    return metered.size();
  }

  /**
   * Counts a request the node served.
   *
   * @param op one of the ops the node meters
   * @param key the request's key, counted in the hot-key sketch; null: none (a scan)
   * @param bytesIn the key and value bytes the request carried
   * @param bytesOut the bytes its answer carried
   * @param nanos how long the node took to serve it
   * @param now the current {@link System#nanoTime()}, for the hot-key windows
   */
  public void served(Partition partition, Op op, byte[] key, long bytesIn, long bytesOut,
      long nanos, long now) {
    partition.requests[op.ordinal()].record(nanos, NANOSECONDS);
    partition.bytesIn.increment(bytesIn);
    partition.bytesOut.increment(bytesOut);
    nodeRequests[op.ordinal()].record(nanos, NANOSECONDS);
    nodeBytesIn.increment(bytesIn);
    nodeBytesOut.increment(bytesOut);
    if (key != null) {
      hotKeys.offer(partition.id, key, now);
    }
  }

  /** The node's load view: {@code partitions} (in the order given) and its hottest keys. */
  public NodeLoad view(NodeId node, List<PartitionLoad> partitions) {
    HotKeys.Report hot = hotKeys.report();
    return new NodeLoad(node, partitions, hot.requests(), hot.maximumError(), hot.hottest());
  }

  private double hottestShare() {
    HotKeys.Report hot = hotKeys.report();
    return hot.hottest().isEmpty() || hot.requests() == 0 ? 0
        : (double) hot.hottest().get(0).lowerBound() / hot.requests();
  }

  /** Removes every meter of this node from the registry (the node is closing). */
  @Override
  public void close() {
    for (Partition p : metered) {
      remove(p);
    }
    for (Meter meter : nodeMeters) {
      registry.remove(meter);
    }
  }

  /** One partition's meters, built once when the node first serves it. */
  public final class Partition {
    private final int id;
    private final Timer[] requests = new Timer[Op.values().length];
    private final Counter bytesIn;
    private final Counter bytesOut;
    private final Gauge keys;
    private final long created;

    private Partition(int id, DoubleSupplier keyCount, long now) {
      this.id = id;
      this.created = now;
      Tags tags = Tags.of("node", node, "partition", Integer.toString(id));
      for (Op op : ops) {
        requests[op.ordinal()] = Timer.builder(PARTITION_REQUESTS).tags(tags).tag("op", op.tag())
            .description("data requests served for the partition").register(registry);
      }
      bytesIn = Counter.builder(PARTITION_BYTES).tags(tags).tag("direction", "in")
          .baseUnit("bytes").description("key and value bytes of served requests")
          .register(registry);
      bytesOut = Counter.builder(PARTITION_BYTES).tags(tags).tag("direction", "out")
          .baseUnit("bytes").description("value bytes of the answers").register(registry);
      keys = Gauge.builder(PARTITION_KEYS, keyCount, DoubleSupplier::getAsDouble).tags(tags)
          .description("keys held in the partition").strongReference(true).register(registry);
    }

    /** The partition's number. */
    public int id() {
      return id;
    }

    /**
     * What these meters counted, as the node's view reports it: gets include scans (reads
     * both), the latency is over every op.
     *
     * @param state the partition's state on the node, in the node's words
     * @param epoch the epoch the node holds it under
     * @param keyCount keys it holds
     * @param now the current {@link System#nanoTime()}
     */
    public PartitionLoad load(String state, long epoch, long keyCount, long now) {
      long total = 0;
      long max = 0;
      for (Timer t : requests) {
        if (t != null) {
          total += (long) t.totalTime(NANOSECONDS);
          max = Math.max(max, (long) t.max(NANOSECONDS));
        }
      }
      return new PartitionLoad(id, state, epoch, keyCount, Math.max(1, now - created),
          count(Op.GET) + count(Op.SCAN), count(Op.PUT), count(Op.CAS),
          (long) bytesIn.count(), (long) bytesOut.count(), total, max);
    }

    private long count(Op op) {
      Timer t = requests[op.ordinal()];
      return t == null ? 0 : t.count();
    }

    private void remove() {
      for (Timer t : requests) {
        if (t != null) {
          registry.remove(t);
        }
      }
      registry.remove(bytesIn);
      registry.remove(bytesOut);
      registry.remove(keys);
    }
  }
}
