package io.partkit.backend.hazelcast;

import static java.util.Objects.requireNonNull;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.MigrationListener;
import com.hazelcast.partition.MigrationState;
import com.hazelcast.partition.Partition;
import com.hazelcast.partition.ReplicaMigrationEvent;
import io.partkit.spi.HashSlots;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Hazelcast's actual placement as a partkit {@link PartitionAssignment}, so partkit's
 * {@link io.partkit.stats.PlacementStatistics} and {@link io.partkit.stats.Movement}
 * can measure Hazelcast's native placement next to partkit's strategies.
 *
 * <p>What it holds: for each Hazelcast partition id, its owner (the primary), as the member's
 * partkit id ({@link HazelcastMembers#toMember}). Replication factor 1: Hazelcast's public API
 * exposes owners only, not backup replicas. The scheme is {@code HashSlots(partitionCount)} over
 * partkit's key hash, i.e. the partition ids of {@link PartkitPartitioningStrategy}; for maps that
 * keep Hazelcast's own key mapping, route with {@link HazelcastPlacement}. The statistics use
 * only the partition -> owner table and equal partition shares, which hold either way.
 *
 * <p>The strategy name recorded is {@value #STRATEGY}.
 */
public final class HazelcastAssignments {

  /** Strategy name on the assignments built here. */
  public static final String STRATEGY = "hazelcast-native";

  private HazelcastAssignments() {}

  /**
   * The current owners, if every partition has one (Hazelcast assigns partitions on first use and
   * during migrations briefly reports none).
   *
   * @param epoch the epoch to stamp on the assignment, >= 0
   */
  public static Optional<PartitionAssignment> snapshot(HazelcastInstance hz, long epoch) {
    requireNonNull(hz, "hz");
    List<Partition> partitions = new ArrayList<>(hz.getPartitionService().getPartitions());
    partitions.sort((a, b) -> Integer.compare(a.getPartitionId(), b.getPartitionId()));
    List<List<NodeId>> table = new ArrayList<>(partitions.size());
    for (int p = 0; p < partitions.size(); p++) {
      Partition partition = partitions.get(p);
      if (partition.getPartitionId() != p) {
        throw new IllegalStateException(
            "Hazelcast partition ids are not 0.."
                + (partitions.size() - 1)
                + ": found "
                + partition.getPartitionId()
                + " at position "
                + p);
      }
      com.hazelcast.cluster.Member owner = partition.getOwner();
      if (owner == null) {
        return Optional.empty();
      }
      table.add(List.of(HazelcastMembers.toMember(owner).id()));
    }
    return Optional.of(PartitionAssignment.of(STRATEGY, epoch, epoch,
        HashSlots.of(partitions.size()), table));
  }

  /**
   * Calls {@code listener} with a fresh snapshot whenever Hazelcast finishes a round of
   * migrations (and once now, if every partition has an owner). Epochs count up from 1 per
   * watch. Snapshots are taken on Hazelcast's event thread; keep the listener short.
   *
   * @return a handle that stops watching when closed
   */
  public static AutoCloseable watch(HazelcastInstance hz, Consumer<PartitionAssignment> listener) {
    requireNonNull(hz, "hz");
    requireNonNull(listener, "listener");
    AtomicLong epoch = new AtomicLong();
    Runnable publish = () -> snapshot(hz, epoch.get() + 1).ifPresent(a -> {
      epoch.incrementAndGet();
      listener.accept(a);
    });
    UUID registration = hz.getPartitionService().addMigrationListener(new MigrationListener() {
      @Override
      public void migrationStarted(MigrationState state) {}

      @Override
      public void migrationFinished(MigrationState state) {
        synchronized (epoch) {
          publish.run();
        }
      }

      @Override
      public void replicaMigrationCompleted(ReplicaMigrationEvent event) {}

      @Override
      public void replicaMigrationFailed(ReplicaMigrationEvent event) {}
    });
    synchronized (epoch) {
      publish.run();
    }
    return () -> hz.getPartitionService().removeMigrationListener(registration);
  }
}
