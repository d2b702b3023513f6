package io.partkit.harness.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleListener;
import com.hazelcast.instance.impl.HazelcastInstanceImpl;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.instance.impl.Node;
import com.hazelcast.internal.partition.MigrationInfo;
import com.hazelcast.internal.partition.impl.InternalPartitionServiceImpl;
import com.hazelcast.internal.partition.impl.MigrationInterceptor;
import com.hazelcast.map.impl.MapService;
import com.hazelcast.map.impl.PartitionContainer;
import com.hazelcast.map.impl.recordstore.RecordStore;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this member received from the others to create partition copies it did not hold, counted
 * by Hazelcast's own partition service: a {@link MigrationInterceptor} on the member's
 * {@link InternalPartitionServiceImpl}, the hook Hazelcast calls on a migration's destination.
 *
 * <p>Hazelcast's public {@code MigrationListener} is not enough: its events come from the master
 * after the fact, without the destination's current replica index (so a backup promoted to
 * primary on a member that already holds the data cannot be told from a copy received) and
 * without sizes. The interceptor's {@code onMigrationComplete(DESTINATION, ...)} runs on this
 * member's partition thread right after the migration's replication operations were applied, so
 * the partition's record stores then hold exactly what arrived (no client operation on that
 * partition can run in between). The entries and their cost (Hazelcast's
 * {@link RecordStore#getOwnedEntryCost()}, the figure of its map memory statistics) are kept
 * aside until the master finalizes the migration: a commit adds them to the totals, a rollback
 * drops them.
 *
 * <p>Hazelcast's partition table names a member for every replica index up to 6 whatever the
 * backup count, so a migration is counted only when it makes this member hold a copy it did not:
 * its new index carries data (at most the backup count) and its old one did not (none, or above
 * the backup count: a member moving from index 2 to 1 after a crash receives the backup's data).
 * A shift between indexes that both carry data (backup to primary) moves nothing and is not
 * counted; nor is a move to an index above the backup count, which carries no map data.
 *
 * <p>Not counted: Hazelcast's anti-entropy replica sync (a backup that fell behind re-fetching
 * its partition), which repairs a copy the member already has rather than creating one.
 */
final class ReceivedCopies implements MigrationInterceptor {

  /** A received copy measured on completion, waiting for the master's commit. */
  private record Pending(long entries, long bytes) {}

  /** Set before the member joins (see {@link Installer}), read on partition threads. */
  private volatile MapService maps;
  private final Map<UUID, Pending> pending = new ConcurrentHashMap<>();
  private final AtomicLong entries = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong partitions = new AtomicLong();

  /** Replica indexes 0..this carry a map's data: its synchronous and asynchronous backups. */
  private final int backups;

  private ReceivedCopies(int backups) {
    this.backups = backups;
  }

  /**
   * The counters, installed on the member that {@code config} starts before it joins: migrations
   * to a member start as soon as it has joined, before {@code Hazelcast.newHazelcastInstance}
   * returns, so an interceptor set afterwards could miss the first ones.
   */
  static ReceivedCopies installOnStart(Config config, int backups) {
    ReceivedCopies copies = new ReceivedCopies(backups);
    config.addListenerConfig(new ListenerConfig(new Installer(copies)));
    return copies;
  }

  /**
   * Hazelcast hands its configured listeners the instance while the member starts, after its
   * services exist and before it joins; a lifecycle listener is the kind that has nothing else
   * to do.
   */
  private static final class Installer implements LifecycleListener, HazelcastInstanceAware {
    private final ReceivedCopies copies;

    Installer(ReceivedCopies copies) {
      this.copies = copies;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hz) {
      Node node = ((HazelcastInstanceImpl) hz).node;
      copies.maps = node.getNodeEngine().getService(MapService.SERVICE_NAME);
      ((InternalPartitionServiceImpl) node.getPartitionService()).setMigrationInterceptor(copies);
    }

    @Override
    public void stateChanged(LifecycleEvent event) {
      // registered for setHazelcastInstance only
    }
  }

  /** {@code hz}'s partition service, for what the public one does not say. */
  static InternalPartitionServiceImpl partitionService(HazelcastInstance hz) {
    return (InternalPartitionServiceImpl) ((HazelcastInstanceProxy) hz).getOriginal().node
        .getPartitionService();
  }

  @Override
  public void onMigrationComplete(MigrationParticipant participant, MigrationInfo migration,
      boolean success) {
    int before = migration.getDestinationCurrentReplicaIndex();
    int after = migration.getDestinationNewReplicaIndex();
    if (participant != MigrationParticipant.DESTINATION || !success
        || !createsCopy(before, after, backups)) {
      return;
    }
    PartitionContainer container =
        maps.getMapServiceContext().getPartitionContainer(migration.getPartitionId());
    long received = 0;
    long cost = 0;
    for (RecordStore<?> store : container.getAllRecordStores()) {
      // a map with another backup count than the configured one decides for itself
      if (createsCopy(before, after, store.getMapContainer().getTotalBackupCount())) {
        received += store.size();
        cost += store.getOwnedEntryCost();
      }
    }
    pending.put(migration.getUid(), new Pending(received, cost));
  }

  /**
   * True when a member that held replica index {@code before} (-1: none) of a partition and now
   * holds {@code after} receives a copy of data it did not have, where indexes 0..{@code backups}
   * carry the data.
   */
  static boolean createsCopy(int before, int after, int backups) {
    boolean heldData = before >= 0 && before <= backups;
    boolean holdsData = after >= 0 && after <= backups;
    return holdsData && !heldData;
  }

  @Override
  public void onMigrationCommit(MigrationParticipant participant, MigrationInfo migration) {
    if (participant != MigrationParticipant.DESTINATION) {
      return;
    }
    Pending copy = pending.remove(migration.getUid());
    if (copy != null) {
      entries.addAndGet(copy.entries());
      bytes.addAndGet(copy.bytes());
      partitions.incrementAndGet();
    }
  }

  @Override
  public void onMigrationRollback(MigrationParticipant participant, MigrationInfo migration) {
    if (participant == MigrationParticipant.DESTINATION) {
      pending.remove(migration.getUid());
    }
  }

  /** {@code keys=K bytes=B partitions=P}: the committed totals since this member started. */
  String totals() {
    return "keys=" + entries.get() + " bytes=" + bytes.get() + " partitions=" + partitions.get();
  }
}
