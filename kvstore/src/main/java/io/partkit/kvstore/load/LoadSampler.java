package io.partkit.kvstore.load;

import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.LoadMeasure;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The kvstore's side of load-aware rebalancing: samples the nodes' load view (a routing client's
 * {@code KvClient::load}) and answers, for a table, the loads measured under it. Its {@link #loads}
 * has the shape of the coordinator's {@code LoadSource}, so wiring it is one method reference,
 * and this module needs no coordinator dependency:
 *
 * <pre>{@code
 * LoadSampler sampler = LoadSampler.of(client::load, LoadMeasure.OPS_PER_SECOND);
 * Coordinators.builder()...loadSource(sampler::loads)...build();
 * scheduler.scheduleAtFixedRate(sampler::sample, 1, 1, TimeUnit.MINUTES);
 * }</pre>
 *
 * <p>Sampling and answering are apart because the coordinator asks under its lock and must not
 * wait on the network: {@link #sample} reads every node (call it on your own schedule), {@link
 * #loads} only looks at what the last sample computed.
 *
 * <p>It takes the reading as a function rather than the client itself so that the load view
 * stays below the client, which returns it.
 */
public interface LoadSampler {

  /**
   * A sampler taking its readings from {@code reading} (a routing client's {@code
   * KvClient::load}: every node's view under the client's cached table) and rating them by
   * {@code measure}.
   */
  static LoadSampler of(Supplier<ClusterLoad> reading, LoadMeasure measure) {
    return new KvLoadSampler(reading, measure);
  }

  /**
   * Reads every node's load view now. When the previous sample was taken under the same table
   * epoch, the loads are the rates between the two ({@link ClusterLoad#partitionLoadsSince});
   * otherwise (the first sample, or the first after the table changed) the averages over each
   * partition's whole count ({@link ClusterLoad#partitionLoads}).
   *
   * @return the loads just computed, tied to the epoch of the client's table
   * @throws RuntimeException what the reading throws (the client's {@code KvException} if a
   *     node could not be reached); the last good sample stays in force
   * @throws IllegalStateException if a node holds a partition under a newer epoch than the
   *     client's table ({@link ClusterLoad#partition}); give the client the newer table ({@code
   *     KvClient.offer}). A sample under an older table is tied to that table's epoch, so
   *     {@link #loads} never answers it for a newer one
   */
  PartitionLoads sample();

  /**
   * The loads of the last sample if they were measured under {@code table} (same epoch and
   * partition count), else empty: loads measured under another table would put partitions on
   * the wrong nodes. Never reads the network.
   */
  Optional<PartitionLoads> loads(PartitionAssignment table);
}
