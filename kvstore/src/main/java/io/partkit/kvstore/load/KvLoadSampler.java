package io.partkit.kvstore.load;

import static java.util.Objects.requireNonNull;

import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.LoadMeasure;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.util.Optional;
import java.util.function.Supplier;

/** {@link LoadSampler} over a reading of every node's load view. */
final class KvLoadSampler implements LoadSampler {

  private final Supplier<ClusterLoad> reading;
  private final LoadMeasure measure;
  /** The previous reading, the base of the next rate; guarded by {@code this}. */
  private ClusterLoad previous;
  /**
   * What {@link #loads} answers. Volatile rather than guarded: the coordinator reads it under
   * its own lock while a sample may be reading the nodes, and must not wait for that.
   */
  private volatile PartitionLoads latest;

  KvLoadSampler(Supplier<ClusterLoad> reading, LoadMeasure measure) {
    this.reading = requireNonNull(reading, "reading");
    this.measure = requireNonNull(measure, "measure");
  }

  @Override
  public synchronized PartitionLoads sample() {
    ClusterLoad now = reading.get();
    PartitionLoads loads = previous != null && previous.table().epoch() == now.table().epoch()
        ? now.partitionLoadsSince(previous, measure)
        : now.partitionLoads(measure);
    previous = now;
    latest = loads;
    return loads;
  }

  @Override
  public Optional<PartitionLoads> loads(PartitionAssignment table) {
    PartitionLoads loads = latest;
    return loads != null && loads.describes(table) ? Optional.of(loads) : Optional.empty();
  }
}
