package io.partkit.harness.ignite;

import java.util.Map;
import org.apache.ignite.Ignite;
import org.apache.ignite.events.CacheRebalancingEvent;
import org.apache.ignite.events.Event;
import org.apache.ignite.events.EventType;
import org.apache.ignite.internal.IgniteEx;
import org.apache.ignite.internal.processors.affinity.AffinityTopologyVersion;
import org.apache.ignite.lang.IgnitePredicate;
import org.apache.ignite.resources.IgniteInstanceResource;
import org.apache.ignite.spi.metric.IntMetric;
import org.apache.ignite.spi.metric.LongMetric;
import org.apache.ignite.spi.metric.Metric;
import org.apache.ignite.spi.metric.ObjectMetric;
import org.apache.ignite.spi.metric.ReadOnlyMetricRegistry;

/**
 * What this node received by rebalancing one cache, summed since the node started, from Ignite's
 * own metrics of the cache group ({@code cacheGroups.<cache>}): {@code RebalancingReceivedKeys},
 * the entries' marshalled sizes per supplier ({@code RebalancingFullReceivedBytes} and
 * {@code RebalancingHistReceivedBytes}) and the partitions done ({@code
 * RebalancingPartitionsTotal - RebalancingPartitionsLeft}).
 *
 * <p>Ignite keeps those metrics per rebalance: they read the demander's current rebalance, and a
 * new rebalance (a topology change) starts again from zero. So the totals of every rebalance are
 * banked when it ends, from a listener of {@link EventType#EVT_CACHE_REBALANCE_STOPPED}, which
 * Ignite records synchronously while the ending rebalance is still the current one; a listener of
 * {@link EventType#EVT_CACHE_REBALANCE_STARTED}, recorded right after the new rebalance became
 * current, marks that nothing of the new one is banked yet. Banking only what was not banked
 * before also covers a rebalance Ignite cancels before it started (it ends after its successor
 * began and adds nothing twice).
 *
 * <p>It is a local event listener of the node's configuration ({@link #EVENTS}, which must also be
 * recordable: {@code IgniteConfiguration.setIncludeEventTypes}), not one added after the start:
 * a joining node may start, and end, its first rebalance before {@code Ignition.start} returns,
 * and a missed end would lose that rebalance's counts at the next start. Ignite injects the
 * node into it when it registers it.
 */
final class IgniteRebalanceCounters implements IgnitePredicate<Event> {

  /** The event types it listens to. */
  static final int[] EVENTS = {EventType.EVT_CACHE_REBALANCE_STARTED,
      EventType.EVT_CACHE_REBALANCE_STOPPED};

  private static final long serialVersionUID = 1L;

  @IgniteInstanceResource
  private transient volatile Ignite ignite;
  private final String cache;
  private final String group;
  private long keysBanked;
  private long bytesBanked;
  private long partitionsBanked;
  /** What of the current rebalance is banked already. */
  private long keysOfCurrent;
  private long bytesOfCurrent;
  private long partitionsOfCurrent;

  IgniteRebalanceCounters(String cache) {
    this.cache = cache;
    this.group = "cacheGroups." + cache;
  }

  @Override
  public boolean apply(Event event) {
    if (event instanceof CacheRebalancingEvent r && cache.equals(r.cacheName())) {
      synchronized (this) {
        if (event.type() == EventType.EVT_CACHE_REBALANCE_STOPPED) {
          bank();
        } else {
          keysOfCurrent = 0;
          bytesOfCurrent = 0;
          partitionsOfCurrent = 0;
        }
      }
    }
    return true; // keep listening
  }

  private void bank() {
    long[] now = current();
    keysBanked += Math.max(0, now[0] - keysOfCurrent);
    bytesBanked += Math.max(0, now[1] - bytesOfCurrent);
    partitionsBanked += Math.max(0, now[2] - partitionsOfCurrent);
    keysOfCurrent = Math.max(keysOfCurrent, now[0]);
    bytesOfCurrent = Math.max(bytesOfCurrent, now[1]);
    partitionsOfCurrent = Math.max(partitionsOfCurrent, now[2]);
  }

  /** Keys, bytes and partitions of the current rebalance, as Ignite's metrics say now. */
  private long[] current() {
    ReadOnlyMetricRegistry r = registry();
    if (r == null) {
      return new long[3];
    }
    long keys = number(r.findMetric("RebalancingReceivedKeys"));
    long bytes = sum(r.findMetric("RebalancingFullReceivedBytes"))
        + sum(r.findMetric("RebalancingHistReceivedBytes"));
    long partitions = number(r.findMetric("RebalancingPartitionsTotal"))
        - number(r.findMetric("RebalancingPartitionsLeft"));
    return new long[] {keys, bytes, Math.max(0, partitions)};
  }

  /**
   * One line for {@code REBALANCE}: the banked totals plus the current rebalance's progress, then
   * whether this node is still rebalancing: the discovery topology version, the affinity version
   * whose partition exchange finished here, the partitions left of the current rebalance, and the
   * partitions Ignite lists as MOVING (copies being created) on this node and in the cluster.
   * See {@link IgniteRebalanceState#parse}.
   */
  synchronized String report() {
    long[] now = current();
    long keys = keysBanked + Math.max(0, now[0] - keysOfCurrent);
    long bytes = bytesBanked + Math.max(0, now[1] - bytesOfCurrent);
    long partitions = partitionsBanked + Math.max(0, now[2] - partitionsOfCurrent);
    ReadOnlyMetricRegistry r = registry();
    long left = r == null ? 0 : number(r.findMetric("RebalancingPartitionsLeft"));
    long moving = r == null ? 0 : number(r.findMetric("LocalNodeMovingPartitionsCount"));
    long clusterMoving = r == null ? 0 : number(r.findMetric("ClusterMovingPartitionsCount"));
    AffinityTopologyVersion ready = ((IgniteEx) ignite).context().cache().context().exchange()
        .readyAffinityVersion();
    return "REBALANCE keys=" + keys + " bytes=" + bytes + " partitions=" + partitions
        + " topology=" + ignite.cluster().topologyVersion()
        + " ready=" + ready.topologyVersion() + "." + ready.minorTopologyVersion()
        + " left=" + left + " moving=" + moving + " cluster-moving=" + clusterMoving
        + " group=" + (r != null);
  }

  /** The cache group's registry, or null before the cache started on this node. */
  private ReadOnlyMetricRegistry registry() {
    if (ignite == null) {
      return null; // not registered yet: nothing rebalanced either
    }
    // iterated, not looked up by name: a lookup would create an empty registry of that name
    for (ReadOnlyMetricRegistry r : ((IgniteEx) ignite).context().metric()) {
      if (r.name().equals(group)) {
        return r;
      }
    }
    return null;
  }

  private static long number(Metric m) {
    if (m instanceof LongMetric l) {
      return l.value();
    }
    if (m instanceof IntMetric i) {
      return i.value();
    }
    return m == null ? 0 : Long.parseLong(m.getAsString());
  }

  /** The sum of a per-supplier metric (a map of supplier to count). */
  private static long sum(Metric m) {
    if (m instanceof ObjectMetric<?> o && o.value() instanceof Map<?, ?> map) {
      long total = 0;
      for (Object v : map.values()) {
        total += ((Number) v).longValue();
      }
      return total;
    }
    return 0;
  }
}
