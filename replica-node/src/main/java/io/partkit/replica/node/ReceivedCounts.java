package io.partkit.replica.node;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.partkit.replica.Bytes;
import io.partkit.replica.Record;
import io.partkit.replica.Record.Rebased;
import io.partkit.replica.Record.SnapshotPage;
import io.partkit.replica.node.load.CopiesReceived;
import io.partkit.spi.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * A node's counts of what it received from other nodes to create or level its copies ({@link
 * CopiesReceived}), since its process started, read off the records its replica decided: a
 * {@link SnapshotPage} is a page of a whole copy taken, a {@link Rebased} a level taken by name.
 * The core decides what it takes and records it; the driver only counts what the records say, so
 * the core stays free of meters, and a page the core dropped (stale, or after a lost one) is not
 * counted. Records replayed at a start are not counted: the counts are this process's.
 *
 * <p>Written by the state thread only; read by any thread (the load answer, the registry's
 * function counters {@value #KEYS}, {@value #BYTES}, {@value #PARTITIONS}, {@value #PAGES} and
 * {@value #LEVELS}, tagged with the node's id as in load views).
 */
final class ReceivedCounts implements AutoCloseable {

  static final String KEYS = "partkit.replica.node.received.keys";
  static final String BYTES = "partkit.replica.node.received.bytes";
  static final String PARTITIONS = "partkit.replica.node.received.partitions";
  static final String PAGES = "partkit.replica.node.received.pages";
  static final String LEVELS = "partkit.replica.node.received.levels";

  private final AtomicLong keys = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong partitions = new AtomicLong();
  private final AtomicLong pages = new AtomicLong();
  private final AtomicLong levels = new AtomicLong();
  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();

  /** Counts of node {@code self}, with function counters on {@code registry}. */
  ReceivedCounts(int self, MeterRegistry registry) {
    this.registry = registry;
    Tags tags = Tags.of("node", RequestMeters.nodeId(self).value());
    meter(KEYS, "keys received from other nodes to create or level copies", tags,
        c -> c.keys.get());
    meter(BYTES, "key and value bytes received from other nodes to create or level copies",
        tags, c -> c.bytes.get());
    meter(PARTITIONS, "whole partition copies received from other nodes", tags,
        c -> c.partitions.get());
    meter(PAGES, "snapshot pages received from other nodes", tags, c -> c.pages.get());
    meter(LEVELS, "levels taken by name, without a copy", tags, c -> c.levels.get());
  }

  private void meter(String name, String description, Tags tags,
      ToDoubleFunction<ReceivedCounts> value) {
    meters.add(FunctionCounter.builder(name, this, value).tags(tags).description(description)
        .register(registry));
  }

  /** Counts what {@code records}, a round's records of the replica, say it received. */
  void count(List<Record> records) {
    for (Record r : records) {
      if (r instanceof SnapshotPage p) {
        long pageBytes = 0;
        for (Map.Entry<Bytes, Bytes> e : p.data().entrySet()) {
          pageBytes += e.getKey().length() + e.getValue().length();
        }
        keys.addAndGet(p.data().size());
        bytes.addAndGet(pageBytes);
        pages.incrementAndGet();
        if (p.last()) {
          partitions.incrementAndGet();
        }
      } else if (r instanceof Rebased b) {
        long changed = 0;
        for (Map.Entry<Bytes, Bytes> e : b.put().entrySet()) {
          changed += e.getKey().length() + e.getValue().length();
        }
        for (Bytes k : b.removed()) {
          changed += k.length();
        }
        keys.addAndGet(b.put().size() + b.removed().size());
        bytes.addAndGet(changed);
        levels.incrementAndGet();
      }
    }
  }

  /** The counts now. */
  CopiesReceived now() {
    return new CopiesReceived(keys.get(), bytes.get(), partitions.get(), pages.get(),
        levels.get());
  }

  /** Removes the function counters from the registry (the node is closing). */
  @Override
  public void close() {
    meters.forEach(registry::remove);
    meters.clear();
  }
}
