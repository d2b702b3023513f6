package io.partkit.coordinator.etcd;

import static io.partkit.coordinator.internal.ListenerExecutor.closeQuietly;
import static java.util.Objects.requireNonNull;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.partkit.coordinator.Leadership;
import io.partkit.coordinator.MetadataCodec;
import io.partkit.coordinator.MetadataSnapshot;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStoreException;
import io.partkit.coordinator.PendingMigration;
import io.partkit.coordinator.VersionedValues;
import io.partkit.coordinator.internal.ListenerExecutor;
import io.partkit.coordinator.internal.VersionedValueArguments;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MetadataStore} and {@link VersionedValues} on etcd v3 through jetcd.
 *
 * <p>Compare-and-set: a change first reads the table key (its value and mod revision), checks the
 * epoch, then commits in a transaction whose guard is "the table key's mod revision is still the
 * one read". etcd's transactions are serializable, so the guard makes the read-check-write atomic.
 * A versioned value is one key, {@code <prefix>/values/<name>}, its version the key's mod
 * revision; its transaction is guarded by that mod revision (by "not created yet" for
 * {@link VersionedValues#ABSENT}).
 *
 * <p>Requests that fail on a transport error (an etcd member died, a leader election is under way)
 * are retried on the other endpoints until the request timeout. A transaction whose outcome is
 * unknown (the request may have been applied before the connection broke) is not blindly retried:
 * the store reads back and recognizes its own write (same table, same pending migrations, same
 * value bytes under a version above the expected one), so a commit is reported exactly once and
 * never mistaken for a lost race ({@code guardedWrite}).
 *
 * <p>Leader election: the leader key holds the candidate's name on the candidate's lease, created
 * by "create if absent" ({@code createRevision == 0}); a standby watches the key and campaigns
 * again when it is deleted (its holder stepped down or its lease expired). This is the recipe of
 * etcd's own {@code concurrency.Election}, simplified to one key because only one coordinator
 * needs to act and the table itself is protected by compare-and-set. A leader whose lease
 * keep-alive fails steps down at once and recovers (see {@link EtcdLeaderElection}).
 */
final class EtcdMetadataStore implements MetadataStore, VersionedValues {

  private static final Logger LOG = LoggerFactory.getLogger(EtcdMetadataStore.class);

  private final Client client;
  private final KV kv;
  private final String endpoints;
  private final String prefix;
  private final Duration requestTimeout;
  private final long leaderTtlSeconds;
  private final ByteSequence tableKey;
  private final ByteSequence migrationsKey;
  private final ByteSequence membersPrefix;
  private final ByteSequence leaderKey;
  private final String valuesPrefix;
  private final ListenerExecutor callbacks;
  private final Map<NodeId, Long> memberLeases = new ConcurrentHashMap<>();
  private final List<AutoCloseable> resources = new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile boolean closed;

  private EtcdMetadataStore(EtcdMetadataStores.Builder b, Client client) {
    this.client = client;
    this.kv = client.getKVClient();
    this.endpoints = String.join(",", b.endpoints);
    this.prefix = b.prefix;
    this.requestTimeout = b.requestTimeout;
    this.leaderTtlSeconds = b.leaderTtl.toSeconds();
    this.tableKey = bytes(prefix + "/table");
    this.migrationsKey = bytes(prefix + "/migrations");
    this.membersPrefix = bytes(prefix + "/members/");
    this.leaderKey = bytes(prefix + "/leader");
    this.valuesPrefix = prefix + "/values/";
    this.callbacks = new ListenerExecutor("partkit-etcd-store-callbacks " + prefix, describe());
  }

  static MetadataStore connect(EtcdMetadataStores.Builder b) {
    Client client = Client.builder().endpoints(b.endpoints.toArray(String[]::new))
        .connectTimeout(b.connectTimeout)
        .retryMaxDuration(b.requestTimeout)
        .build();
    EtcdMetadataStore store = new EtcdMetadataStore(b, client);
    try {
      client.getKVClient().get(store.tableKey).get(b.connectTimeout.toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      client.close();
      store.callbacks.shutdown();
      throw new MetadataStoreException("cannot reach etcd at " + store.endpoints + " within "
          + seconds(b.connectTimeout) + ": " + rootMessage(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      client.close();
      throw new MetadataStoreException(
          "interrupted while connecting to etcd at " + store.endpoints, e);
    }
    return store;
  }

  // ---- table and migrations ----

  @Override
  public MetadataSnapshot read() {
    TxnResponse r = await("read the table", () -> kv.txn()
        .Then(Op.get(tableKey, GetOption.DEFAULT), Op.get(migrationsKey, GetOption.DEFAULT))
        .commit());
    Optional<PartitionAssignment> table = first(r.getGetResponses().get(0))
        .map(kv -> parseTable(kv.getValue()));
    List<PendingMigration> pending = first(r.getGetResponses().get(1))
        .map(kv -> MetadataCodec.migrationsFromJson(kv.getValue().toString(StandardCharsets.UTF_8)))
        .orElse(List.of());
    return new MetadataSnapshot(table, pending, r.getHeader().getRevision());
  }

  /** The table key's epoch and mod revision (0 when absent), read linearizably. */
  private record TableVersion(long epoch, long modRevision, Optional<PartitionAssignment> table,
      boolean migrationsPending, List<PendingMigration> pending) {}

  private TableVersion readVersion() {
    TxnResponse r = await("read the table", () -> kv.txn()
        .Then(Op.get(tableKey, GetOption.DEFAULT), Op.get(migrationsKey, GetOption.DEFAULT))
        .commit());
    Optional<KeyValue> t = first(r.getGetResponses().get(0));
    Optional<KeyValue> m = first(r.getGetResponses().get(1));
    Optional<PartitionAssignment> table = t.map(kv -> parseTable(kv.getValue()));
    List<PendingMigration> pending = m.map(kv -> MetadataCodec.migrationsFromJson(
        kv.getValue().toString(StandardCharsets.UTF_8))).orElse(List.of());
    return new TableVersion(table.map(PartitionAssignment::epoch).orElse(NO_TABLE),
        t.map(KeyValue::getModRevision).orElse(0L), table, m.isPresent(), pending);
  }

  @Override
  public boolean compareAndSetTable(long expectedEpoch, PartitionAssignment next) {
    requireNonNull(next, "next");
    if (next.epoch() <= expectedEpoch) {
      throw new IllegalArgumentException("the next table's epoch must be above the expected "
          + expectedEpoch + ": " + next.epoch());
    }
    ByteSequence value = ByteSequence.from(MetadataCodec.tableToBytes(next));
    return tableWrite("commit table epoch " + next.epoch(), expectedEpoch,
        v -> kv.txn().If(new Cmp(tableKey, Cmp.Op.EQUAL, CmpTarget.modRevision(v.modRevision())))
            .Then(Op.put(tableKey, value, PutOption.DEFAULT),
                Op.delete(migrationsKey, DeleteOption.DEFAULT))
            .commit(),
        v -> true,
        v -> v.table().isPresent() && v.table().get().equals(next));
  }

  @Override
  public boolean recordMigrations(long expectedEpoch, List<PendingMigration> migrations) {
    List<PendingMigration> copy = List.copyOf(migrations);
    if (copy.isEmpty()) {
      throw new IllegalArgumentException("no migrations to record");
    }
    for (PendingMigration m : copy) {
      if (m.migration().targetEpoch() <= expectedEpoch) {
        throw new IllegalArgumentException("migration of partition " + m.migration().partition()
            + " must target an epoch above " + expectedEpoch + ": "
            + m.migration().targetEpoch());
      }
    }
    ByteSequence value = bytes(MetadataCodec.migrationsToJson(copy));
    return tableWrite("record " + copy.size() + " migrations", expectedEpoch,
        v -> kv.txn().If(new Cmp(tableKey, Cmp.Op.EQUAL, CmpTarget.modRevision(v.modRevision())),
                new Cmp(migrationsKey, Cmp.Op.EQUAL, CmpTarget.version(0)))
            .Then(Op.put(migrationsKey, value, PutOption.DEFAULT))
            .commit(),
        v -> !v.migrationsPending(),
        v -> v.epoch() == expectedEpoch && v.pending().equals(copy));
  }

  @Override
  public boolean clearMigrations(long expectedEpoch) {
    return tableWrite("clear migrations", expectedEpoch,
        v -> kv.txn().If(new Cmp(tableKey, Cmp.Op.EQUAL, CmpTarget.modRevision(v.modRevision())))
            .Then(Op.delete(migrationsKey, DeleteOption.DEFAULT))
            .commit(),
        v -> true,
        v -> v.epoch() == expectedEpoch && !v.migrationsPending());
  }

  /** A change of the table or the migrations, guarded at {@code expectedEpoch}. */
  private boolean tableWrite(String what, long expectedEpoch,
      Function<TableVersion, CompletableFuture<TxnResponse>> txn,
      Predicate<TableVersion> precondition, Predicate<TableVersion> appliedIf) {
    return guardedWrite(what, this::readVersion,
        v -> v.epoch() == expectedEpoch && precondition.test(v), txn,
        v -> appliedIf.test(v) ? OptionalLong.of(v.modRevision()) : OptionalLong.empty())
        .isPresent();
  }

  /**
   * Read, check, guarded write, until the guard holds or the check fails; the one place that
   * decides what a transaction of unknown outcome did. Such a transaction may also be applied
   * after the read-back (etcd answered "request timed out" while the proposal was still in its
   * raft log): the write sent again then fails its guard, so once any attempt was in doubt, a
   * state that refuses the write is first checked for this write before it counts as a lost race.
   *
   * @param read a linearizable read of what the guard is about
   * @param mayWrite whether the state read still allows the write (false: give up, empty)
   * @param txn the transaction for the state read, guarded so that it fails if that state changed
   * @param ownWrite on a fresh read after a transport error: the revision of this write if the
   *     state shows it applied, else empty (then the loop reads, checks and writes again)
   * @return the revision of the write (the transaction's, or the one found by reading back);
   *     empty when {@code mayWrite} refused
   */
  private <S> OptionalLong guardedWrite(String what, Supplier<S> read, Predicate<S> mayWrite,
      Function<S, CompletableFuture<TxnResponse>> txn, Function<S, OptionalLong> ownWrite) {
    long deadline = System.nanoTime() + requestTimeout.toNanos();
    boolean inDoubt = false;
    while (true) {
      checkOpen();
      S before = read.get();
      if (!mayWrite.test(before)) {
        return inDoubt ? ownWrite.apply(before) : OptionalLong.empty();
      }
      TxnResponse r;
      try {
        r = txn.apply(before).get(remaining(deadline), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException e) {
        if (System.nanoTime() >= deadline) {
          throw failure(what, e);
        }
        LOG.info("{}: outcome of '{}' unknown ({}); reading back", describe(), what,
            rootMessage(e));
        inDoubt = true;
        OptionalLong applied = ownWrite.apply(read.get());
        if (applied.isPresent()) {
          return applied;
        }
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new MetadataStoreException(describe() + ": interrupted during " + what, e);
      }
      if (r.isSucceeded()) {
        return OptionalLong.of(r.getHeader().getRevision());
      }
      // the guard failed: someone wrote in between; the next read decides
    }
  }

  @Override
  public AutoCloseable watchTable(Consumer<PartitionAssignment> listener) {
    requireNonNull(listener, "listener");
    TableWatch w = new TableWatch(listener);
    w.start();
    resources.add(w);
    return () -> {
      resources.remove(w);
      w.close();
    };
  }

  /**
   * Delivers the current table, then every put of the table key, skipping epochs not above the
   * last delivered. After a watch error (jetcd reports the ones it does not resume from itself,
   * e.g. "no leader" when the member it streams from loses the raft leader) it subscribes again
   * from the revision after the last event it received, so that no committed table is skipped;
   * only when etcd has compacted that revision away does it start over from a fresh read.
   */
  private final class TableWatch implements AutoCloseable {
    private final Consumer<PartitionAssignment> listener;
    private long lastEpoch = Long.MIN_VALUE; // touched on the callback thread only
    /** The revision to watch from next; 0 = read the current table first. */
    private volatile long nextRevision;
    private volatile Watch.Watcher watcher;
    private volatile boolean cancelled;

    TableWatch(Consumer<PartitionAssignment> listener) {
      this.listener = listener;
    }

    void start() {
      if (cancelled || closed) {
        return;
      }
      if (nextRevision == 0) {
        GetResponse current = await("read the table", () -> kv.get(tableKey));
        first(current).ifPresent(kv -> offer(parseTable(kv.getValue())));
        nextRevision = current.getHeader().getRevision() + 1;
      }
      watcher = client.getWatchClient().watch(tableKey,
          WatchOption.builder().withRevision(nextRevision).build(),
          Watch.listener(this::onResponse, this::onError));
    }

    private void onResponse(WatchResponse response) {
      for (WatchEvent e : response.getEvents()) {
        if (e.getEventType() == WatchEvent.EventType.PUT) {
          offer(parseTable(e.getKeyValue().getValue()));
        }
        nextRevision = Math.max(nextRevision, e.getKeyValue().getModRevision() + 1);
      }
    }

    private void onError(Throwable t) {
      if (cancelled || closed) {
        return;
      }
      if (t instanceof CompactedException) {
        LOG.warn("{}: table watch fell behind etcd's compaction ({}); tables committed in between"
            + " are skipped, the current one is delivered", describe(), rootMessage(t));
        nextRevision = 0;
      } else {
        LOG.info("{}: table watch failed ({}); subscribing again from revision {}", describe(),
            rootMessage(t), nextRevision);
      }
      callbacks.run(() -> {
        closeQuietly(watcher);
        try {
          start();
        } catch (RuntimeException e) {
          LOG.warn("{}: cannot watch the table again", describe(), e);
        }
      });
    }

    private void offer(PartitionAssignment t) {
      callbacks.run(() -> {
        if (!cancelled && t.epoch() > lastEpoch) {
          lastEpoch = t.epoch();
          listener.accept(t);
        }
      });
    }

    @Override
    public void close() {
      cancelled = true;
      closeQuietly(watcher);
    }
  }

  // ---- versioned values ----

  private ByteSequence valueKey(String name) {
    return bytes(valuesPrefix + name);
  }

  @Override
  public Optional<Versioned> get(String name) {
    VersionedValueArguments.checkName(name);
    return readValue(name);
  }

  private Optional<Versioned> readValue(String name) {
    ByteSequence key = valueKey(name);
    return first(await("read value '" + name + "'", () -> kv.get(key)))
        .map(kvp -> new Versioned(kvp.getValue().getBytes(), kvp.getModRevision()));
  }

  /**
   * One transaction: put the value if the key's mod revision is still {@code expectedVersion}
   * (if the key was never created, for {@link #ABSENT}); the new version is the transaction's
   * revision, which is the key's new mod revision.
   */
  @Override
  public OptionalLong compareAndSet(String name, long expectedVersion, byte[] value) {
    VersionedValueArguments.checkCompareAndSet(name, expectedVersion, value);
    byte[] copy = value.clone(); // the caller may change its array while this runs
    ByteSequence key = valueKey(name);
    ByteSequence bytes = ByteSequence.from(copy);
    Cmp guard = expectedVersion == ABSENT
        ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
        : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(expectedVersion));
    return guardedWrite("compare-and-set value '" + name + "' from version " + expectedVersion,
        () -> readValue(name),
        stored -> stored.map(Versioned::version).orElse(ABSENT) == expectedVersion,
        stored -> kv.txn().If(guard).Then(Op.put(key, bytes, PutOption.DEFAULT)).commit(),
        stored -> stored.filter(v -> v.version() > expectedVersion
                && Arrays.equals(v.value(), copy))
            .map(v -> OptionalLong.of(v.version())).orElse(OptionalLong.empty()));
  }

  // ---- members ----

  private ByteSequence memberKey(NodeId id) {
    return bytes(prefix + "/members/" + id.value());
  }

  @Override
  public void putMember(Member member, Duration ttl) {
    requireNonNull(member, "member");
    requireNonNull(ttl, "ttl");
    long seconds = Math.max(1, (ttl.toMillis() + 999) / 1000);
    long lease = await("grant a member lease", () -> client.getLeaseClient().grant(seconds))
        .getID();
    await("register member " + member.id(), () -> kv.put(memberKey(member.id()),
        bytes(MetadataCodec.memberToJson(member)),
        PutOption.builder().withLeaseId(lease).build()));
    Long old = memberLeases.put(member.id(), lease);
    if (old != null && old != lease) {
      client.getLeaseClient().revoke(old); // best effort: it expires anyway
    }
  }

  @Override
  public boolean renewMember(NodeId id) {
    requireNonNull(id, "id");
    GetResponse r = await("read member " + id, () -> kv.get(memberKey(id)));
    Optional<KeyValue> kvp = first(r);
    if (kvp.isEmpty() || kvp.get().getLease() == 0) {
      return false;
    }
    long lease = kvp.get().getLease();
    try {
      LeaseKeepAliveResponse k = client.getLeaseClient().keepAliveOnce(lease)
          .get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
      return k.getTTL() > 0;
    } catch (ExecutionException e) {
      LOG.debug("{}: lease of {} is gone: {}", describe(), id, rootMessage(e));
      return false; // expired between the read and the keep-alive
    } catch (TimeoutException e) {
      throw failure("renew member " + id, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MetadataStoreException(describe() + ": interrupted renewing " + id, e);
    }
  }

  @Override
  public boolean removeMember(NodeId id) {
    requireNonNull(id, "id");
    long deleted = await("remove member " + id, () -> kv.delete(memberKey(id))).getDeleted();
    Long lease = memberLeases.remove(id);
    if (lease != null) {
      client.getLeaseClient().revoke(lease);
    }
    return deleted > 0;
  }

  @Override
  public MembershipView members() {
    GetResponse r = await("read members",
        () -> kv.get(membersPrefix, GetOption.builder().isPrefix(true).build()));
    List<Member> members = new ArrayList<>();
    for (KeyValue kvp : r.getKvs()) {
      members.add(MetadataCodec.memberFromJson(kvp.getValue().toString(StandardCharsets.UTF_8)));
    }
    return MembershipView.of(r.getHeader().getRevision(), members);
  }

  @Override
  public AutoCloseable watchMembers(Runnable onChange) {
    requireNonNull(onChange, "onChange");
    Watch.Watcher w = client.getWatchClient().watch(membersPrefix,
        WatchOption.builder().isPrefix(true).build(),
        Watch.listener(resp -> callbacks.run(onChange),
            t -> LOG.info("{}: member watch: {}", describe(), rootMessage(t))));
    resources.add(w);
    return () -> {
      resources.remove(w);
      w.close();
    };
  }

  // ---- leadership ----

  @Override
  public Leadership campaign(String candidate, Runnable onElected, Runnable onLost) {
    EtcdLeaderElection l = new EtcdLeaderElection(this, client, leaderKey, leaderTtlSeconds,
        requestTimeout, candidate, onElected, onLost);
    resources.add(l);
    l.start();
    return l;
  }

  @Override
  public Optional<String> leader() {
    return first(await("read the leader", () -> kv.get(leaderKey)))
        .map(kvp -> kvp.getValue().toString(StandardCharsets.UTF_8));
  }

  static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  // ---- lifecycle and plumbing ----

  @Override
  public String describe() {
    return "etcd store at " + endpoints + " under " + prefix;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    for (AutoCloseable r : List.copyOf(resources)) {
      closeQuietly(r);
    }
    closed = true;
    callbacks.shutdown();
    client.close();
  }

  String prefix() {
    return prefix;
  }

  boolean isClosed() {
    return closed;
  }

  /** An election closed: the store no longer closes it with itself. */
  void released(EtcdLeaderElection election) {
    resources.remove(election);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(describe() + " is closed");
    }
  }


  /** Waits for one etcd request, retrying transport failures until the request timeout. */
  <T> T await(String what, Supplier<CompletableFuture<T>> request) {
    checkOpen();
    long deadline = System.nanoTime() + requestTimeout.toNanos();
    while (true) {
      try {
        return request.get().get(remaining(deadline), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException e) {
        if (System.nanoTime() >= deadline || closed) {
          throw failure(what, e);
        }
        LOG.debug("{}: '{}' failed ({}); retrying", describe(), what, rootMessage(e));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new MetadataStoreException(describe() + ": interrupted during " + what, e);
      }
    }
  }

  private MetadataStoreException failure(String what, Exception e) {
    return new MetadataStoreException("cannot " + what + ": etcd at " + endpoints
        + " did not answer within " + seconds(requestTimeout) + ": " + rootMessage(e), e);
  }

  private static long remaining(long deadline) {
    return Math.max(1, deadline - System.nanoTime());
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  static Optional<KeyValue> first(GetResponse r) {
    return r.getKvs().isEmpty() ? Optional.empty() : Optional.of(r.getKvs().get(0));
  }

  private PartitionAssignment parseTable(ByteSequence value) {
    try {
      return MetadataCodec.tableFromBytes(value.getBytes());
    } catch (IllegalArgumentException e) {
      throw new MetadataStoreException(describe() + ": the table key holds no readable table: "
          + e.getMessage(), e);
    }
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }

}
