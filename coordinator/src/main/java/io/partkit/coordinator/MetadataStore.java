package io.partkit.coordinator;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The linearizable store behind a coordinator: the partition table under its epoch, the
 * migrations in flight towards the next epoch, the member registry and leadership.
 *
 * <p>The interface is shaped after what etcd gives (revisions, transactions, leases, watches) so
 * that both implementations are natural: the embedded store is a lock around a few fields, the
 * etcd store maps each method to one transaction, lease or watch call.
 *
 * <h2>What every implementation guarantees</h2>
 * <ul>
 *   <li><b>Linearizable.</b> Every method acts atomically at one point between its call and its
 *       return, for every client of the same store (every coordinator, every data node).
 *   <li><b>Epochs only grow.</b> {@link #compareAndSetTable} replaces the table only when the
 *       stored epoch is the expected one and the new epoch is larger, so two coordinators racing
 *       from one epoch never both commit: one wins, the other learns it lost (no lost update), and
 *       a committed table is never rolled back.
 *   <li><b>Migrations are tied to the epoch they lead from.</b> {@link #recordMigrations} succeeds
 *       only at the expected epoch and when nothing else is pending; the commit that moves the
 *       table past that epoch clears them in the same atomic step, so after a crash a reader sees
 *       either the migrations (not yet committed) or the table that committed them, never both
 *       and never neither.
 *   <li><b>Watches are ordered.</b> {@link #watchTable} delivers tables in strictly increasing
 *       epoch order, starting with the current one, and never delivers an epoch twice.
 * </ul>
 *
 * <p>Optional abilities are separate interfaces a store implements as well; callers ask with
 * {@code instanceof}. {@link VersionedValues}: named values replaced by compare-and-set on their
 * version (both built-in stores have it).
 *
 * <p>Implementations are thread-safe. Failures to reach a remote store surface as
 * {@link MetadataStoreException} with a message naming the store and what failed.
 */
public interface MetadataStore extends AutoCloseable {

  /**
   * Epoch passed to {@link #compareAndSetTable} and {@link #recordMigrations} when no table exists
   * yet.
   */
  long NO_TABLE = 0;

  // ---- partition table and migrations ----

  /** The table and the pending migrations, read together at one point in time. */
  MetadataSnapshot read();

  /**
   * Replaces the table when its epoch is still {@code expectedEpoch} ({@link #NO_TABLE} when there
   * is none) and clears all pending migrations in the same atomic step.
   *
   * @return true when {@code next} was committed; false when the stored epoch was another one
   *     (someone else committed first: re-read and decide again)
   * @throws IllegalArgumentException if {@code next.epoch() <= expectedEpoch}
   */
  boolean compareAndSetTable(long expectedEpoch, PartitionAssignment next);

  /**
   * Records migrations that lead from the table at {@code expectedEpoch} to a later one, when the
   * table is still at that epoch and nothing is pending. This is the durable "intent" of the
   * migration protocol: a coordinator that crashes after it, or a standby taking over, finds the
   * migrations in {@link #read()} and resumes them.
   *
   * @return true when recorded; false when the epoch moved or other migrations are pending
   * @throws IllegalArgumentException if the list is empty or a migration's target epoch is not
   *     above {@code expectedEpoch}
   */
  boolean recordMigrations(long expectedEpoch, List<PendingMigration> migrations);

  /**
   * Drops the pending migrations without changing the table (all of them rolled back), when the
   * table is still at {@code expectedEpoch}.
   *
   * @return true when cleared (or nothing was pending); false when the epoch moved
   */
  boolean clearMigrations(long expectedEpoch);

  /**
   * Calls {@code listener} with the current table (if any) and then with every newly committed
   * table, in strictly increasing epoch order, on a thread of the store's. A listener that throws
   * is logged and keeps receiving.
   *
   * @return a handle whose {@code close()} stops the notifications
   */
  AutoCloseable watchTable(Consumer<PartitionAssignment> listener);

  // ---- members ----

  /**
   * Registers a member, or replaces the registration under the same id. {@code ttl} is how long
   * the registration lives without a {@link #renewMember}: the etcd store puts the member's key
   * on a lease of that TTL (the lease is the heartbeat, and etcd removes the key when it runs out);
   * the embedded store keeps no clock of its own and leaves expiry to the coordinator's failure
   * detector.
   */
  void putMember(Member member, Duration ttl);

  /**
   * Renews a member's registration (a heartbeat).
   *
   * @return false when the member is not registered (never was, left, or expired)
   */
  boolean renewMember(NodeId id);

  /**
   * Removes a member.
   *
   * @return false when it was not registered
   */
  boolean removeMember(NodeId id);

  /**
   * The registered members; the view's version grows with every change of the registry (the
   * embedded store counts changes, the etcd store uses the revision of the last change).
   */
  MembershipView members();

  /**
   * Calls {@code onChange} after every change of the member registry (including expiries the
   * store detects itself), on a thread of the store's.
   *
   * @return a handle whose {@code close()} stops the notifications
   */
  AutoCloseable watchMembers(Runnable onChange);

  // ---- leadership ----

  /**
   * Campaigns for leadership under {@code candidate}: at most one {@link Leadership} of a store is
   * {@linkplain Leadership#isLeader() leading} at any time. The returned handle is a standby until
   * it wins; it then calls {@code onElected}, and it calls {@code onLost} if leadership ends other
   * than by {@link Leadership#close()} (an etcd lease that expired, a store that closed). Until
   * it is closed, the handle keeps campaigning: after losing leadership it may win again (on etcd,
   * a leader steps down at once when its lease's keep-alive fails and leads again when its lease
   * turns out to have survived the fault). {@code onElected} and {@code onLost} alternate, in the
   * order of the transitions, on a thread of the store's.
   *
   * @param candidate a name for logs and for {@link #leader()} (e.g. host and pid)
   */
  Leadership campaign(String candidate, Runnable onElected, Runnable onLost);

  /** The current leader's candidate name, if there is one. */
  Optional<String> leader();

  /**
   * A short description for messages and logs, e.g. {@code "embedded store (file /var/x.json)"}.
   */
  String describe();

  /**
   * Releases the store's resources; leaderships campaigned through it end. Member registrations
   * stay: they live until removed or, on etcd, until their lease runs out.
   */
  @Override
  void close();
}
