package io.partkit.coordinator.etcd;

import static io.partkit.coordinator.etcd.EtcdMetadataStore.bytes;
import static io.partkit.coordinator.etcd.EtcdMetadataStore.daemon;
import static io.partkit.coordinator.etcd.EtcdMetadataStore.first;
import static io.partkit.coordinator.etcd.EtcdMetadataStore.rootMessage;
import static io.partkit.coordinator.internal.ListenerExecutor.closeQuietly;
import static java.util.Objects.requireNonNull;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import io.partkit.coordinator.Leadership;
import io.partkit.coordinator.MetadataStoreException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One candidate's campaign, as a small state machine driven by a single "steps" thread.
 *
 * <p>Leading means: the leader key exists on our lease and the lease's keep-alive stream is
 * healthy. The moment the keep-alive reports anything else (a stream error when an etcd member
 * dies or loses its raft leader, the stream ending because etcd did not answer within the TTL,
 * a renewal saying the lease is gone) the candidate steps down at once ({@code onLost}): it
 * cannot know whether its lease survives, and acting while unsure is what leadership exists to
 * prevent. It then recovers instead of giving up: it asks etcd whether the lease is still alive
 * ({@code LeaseTimeToLive}); if so it keeps it and renews it again, otherwise it grants a new
 * one. Then it campaigns as usual. The create-if-absent transaction recognizes a key held by our
 * own lease, so a leader whose lease survived the fault leads again ({@code onElected}); if the
 * lease expired and a standby won meanwhile, the candidate watches the key like any standby.
 * Failed steps are retried with bounded exponential backoff until the leadership or the store
 * is closed.
 *
 * <p>Why recover on the same lease rather than always starting over: a transient fault (an etcd
 * member restarting, a raft election) is far shorter than the TTL, and a fresh lease would leave
 * the key held by the old one until it expires, so the cluster would have no leader for a TTL.
 * This is what etcd's own {@code concurrency.Session} avoids by keeping one lease per session.
 *
 * <p>Apart from {@link EtcdMetadataStore} (which creates one per {@code campaign}) because it is a
 * state machine of its own, with its own threads and failure handling, tested on its own
 * ({@code EtcdLeaderElectionTest}); the store lends it its request discipline ({@code await}:
 * retries until the request timeout) and its closed state.
 */
final class EtcdLeaderElection implements Leadership {

  private static final Logger LOG = LoggerFactory.getLogger(EtcdLeaderElection.class);
  private static final long MIN_BACKOFF_MILLIS = 50;
  private static final long MAX_BACKOFF_MILLIS = 1000;

  private final EtcdMetadataStore store;
  private final Client client;
  private final KV kv;
  private final ByteSequence leaderKey;
  private final long ttlSeconds;
  private final Duration requestTimeout;
  private final String candidate;
  private final Runnable onElected;
  private final Runnable onLost;
  /** Runs campaign steps one at a time; steps may block on etcd for the request timeout. */
  private final ScheduledExecutorService steps;
  /** Delivers onElected/onLost in the order of the transitions, without blocking steps. */
  private final ExecutorService events;
  private final AtomicBoolean stepScheduled = new AtomicBoolean();
  /** Set when the keep-alive broke: the next step checks the lease before campaigning. */
  private final AtomicBoolean leaseSuspect = new AtomicBoolean();
  private volatile long lease;
  private volatile LeaseKeeper keeper;
  private volatile Watch.Watcher watcher;
  private volatile boolean leading; // written under synchronized (this)
  private volatile boolean stopped;
  private boolean everElected; // steps thread only, for the log
  private int failures; // steps thread only

  /**
   * Grants the candidate's lease; {@link #start} then campaigns.
   *
   * @param store the store this election belongs to: its request discipline ({@code await}),
   *     its closed state and its description for logs
   */
  EtcdLeaderElection(EtcdMetadataStore store, Client client, ByteSequence leaderKey,
      long ttlSeconds, Duration requestTimeout, String candidate, Runnable onElected,
      Runnable onLost) {
    this.store = store;
    this.client = client;
    this.kv = client.getKVClient();
    this.leaderKey = leaderKey;
    this.ttlSeconds = ttlSeconds;
    this.requestTimeout = requestTimeout;
    this.candidate = requireNonNull(candidate, "candidate");
    this.onElected = onElected;
    this.onLost = onLost;
    this.steps = Executors.newSingleThreadScheduledExecutor(
        daemon("partkit-etcd-leadership " + store.prefix() + " " + candidate));
    this.events = Executors.newSingleThreadExecutor(
        daemon("partkit-etcd-leadership-events " + store.prefix() + " "
            + candidate));
    this.lease = store.await("grant the leader lease",
        () -> client.getLeaseClient().grant(ttlSeconds)).getID();
  }

  /** Campaigns once and waits for it: a coordinator built on a free election leads at once. */
  void start() {
    keepAlive();
    try {
      steps.submit(this::step).get(); // on the steps thread, like every step
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MetadataStoreException(store.describe() + ": interrupted campaigning for "
          + candidate, e);
    } catch (ExecutionException e) {
      throw new MetadataStoreException(store.describe() + ": campaign of " + candidate + " failed: "
          + rootMessage(e), e.getCause());
    }
  }

  /** Renews the current lease through a fresh observer; errors of older observers are ignored. */
  private void keepAlive() {
    LeaseKeeper k = new LeaseKeeper(lease);
    keeper = k;
    k.handle = client.getLeaseClient().keepAlive(k.lease, k);
  }

  private final class LeaseKeeper implements StreamObserver<LeaseKeepAliveResponse> {
    final long lease;
    volatile CloseableClient handle;

    LeaseKeeper(long lease) {
      this.lease = lease;
    }

    @Override
    public void onNext(LeaseKeepAliveResponse value) {
      if (value.getTTL() <= 0) {
        broken(this, "the lease expired");
      }
    }

    @Override
    public void onError(Throwable t) {
      broken(this, "the lease keep-alive failed: " + rootMessage(t));
    }

    @Override
    public void onCompleted() {
      // jetcd ends the stream when etcd did not answer within the TTL: the lease may be gone
      broken(this, "etcd did not renew the lease within its TTL");
    }

    void close() {
      CloseableClient h = handle;
      if (h != null) {
        h.close();
      }
    }
  }

  /** A keep-alive went wrong: step down now, recover on the steps thread. */
  private void broken(LeaseKeeper k, String why) {
    if (k != keeper || stopped || store.isClosed()) {
      return; // an observer we replaced already, or shutting down
    }
    synchronized (this) {
      if (!leaseSuspect.compareAndSet(false, true)) {
        return; // jetcd reports each failed stream restart; one recovery handles them all
      }
      if (leading) {
        leading = false;
        LOG.warn("{}: {} steps down: {}; checking the lease and campaigning again",
            store.describe(), candidate, why);
        notify(onLost);
      } else {
        LOG.info("{}: standby {}: {}; checking the lease", store.describe(), candidate, why);
      }
    }
    schedule(0);
  }

  private void schedule(long delayMillis) {
    if (stopped || store.isClosed() || !stepScheduled.compareAndSet(false, true)) {
      return;
    }
    try {
      steps.schedule(this::step, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      stepScheduled.set(false); // closed meanwhile
    }
  }

  /** One attempt: restore the lease if it is suspect, then campaign. */
  private void step() {
    stepScheduled.set(false);
    if (stopped || store.isClosed()) {
      return;
    }
    try {
      if (leaseSuspect.get()) {
        restoreLease();
      }
      campaign();
      if (failures > 0) {
        LOG.info("{}: campaign of {} works again after {} failed attempts", store.describe(),
            candidate, failures);
      }
      failures = 0;
    } catch (RuntimeException e) {
      if (stopped || store.isClosed()) {
        return;
      }
      failures++;
      // the lease may be what failed (expired between the check and the campaign): check it
      leaseSuspect.set(true);
      long backoff = Math.min(MAX_BACKOFF_MILLIS,
          MIN_BACKOFF_MILLIS << Math.min(failures - 1, 10));
      if (failures == 1) {
        LOG.warn("{}: campaign of {} failed ({}); retrying every {} ms at most until it works",
            store.describe(), candidate, rootMessage(e), MAX_BACKOFF_MILLIS);
      } else {
        LOG.debug("{}: campaign of {} failed again ({})", store.describe(), candidate,
            rootMessage(e));
      }
      schedule(backoff);
    }
  }

  /** Keeps the lease if etcd still has it, otherwise grants a new one; renews it again. */
  private void restoreLease() {
    LeaseKeeper old = keeper;
    keeper = null; // errors the old observer still reports are ignored from now on
    if (old != null) {
      old.close(); // jetcd stops renewing through it
    }
    long current = lease;
    long ttl = store.await("check the leader lease",
        () -> client.getLeaseClient().timeToLive(current, LeaseOption.DEFAULT)).getTTL();
    if (ttl <= 0) {
      long fresh = store.await("grant the leader lease",
          () -> client.getLeaseClient().grant(ttlSeconds)).getID();
      LOG.info("{}: the leader lease of {} expired; campaigning with a new one", store.describe(),
          candidate);
      client.getLeaseClient().revoke(current); // best effort: frees our old key at once
      lease = fresh;
    } else {
      LOG.info("{}: the leader lease of {} is alive ({} s left); renewing it again",
          store.describe(), candidate, ttl);
    }
    // cleared before the new observer exists, so that its first error is not lost
    leaseSuspect.set(false);
    keepAlive();
  }

  /** Create-if-absent on the leader key; a standby watches it and tries again when it goes. */
  private void campaign() {
    long ours = lease;
    TxnResponse r = store.await("campaign", () -> kv.txn()
        .If(new Cmp(leaderKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
        .Then(Op.put(leaderKey, bytes(candidate), PutOption.builder().withLeaseId(ours).build()))
        .Else(Op.get(leaderKey, GetOption.DEFAULT))
        .commit());
    // not succeeded but held by our lease: we held it before a fault, or an answer was lost
    if (r.isSucceeded() || first(r.getGetResponses().get(0))
        .filter(kvp -> kvp.getLease() == ours).isPresent()) {
      elected();
      return;
    }
    long from = r.getHeader().getRevision() + 1;
    closeQuietly(watcher);
    watcher = client.getWatchClient().watch(leaderKey,
        WatchOption.builder().withRevision(from).withNoPut(true).build(),
        Watch.listener(resp -> {
          if (!resp.getEvents().isEmpty()) {
            schedule(0); // the key was deleted: campaign
          }
        }, t -> {
          // jetcd reports only errors it does not recover from itself: read and watch again
          if (!stopped && !store.isClosed()) {
            LOG.info("{}: watch of the leader key failed ({}); campaigning again", store.describe(),
                rootMessage(t));
            schedule(MIN_BACKOFF_MILLIS);
          }
        }));
  }

  private void elected() {
    synchronized (this) {
      if (stopped || store.isClosed() || leaseSuspect.get()) {
        return; // the keep-alive broke meanwhile: the scheduled step decides again
      }
      closeQuietly(watcher);
      watcher = null;
      if (leading) {
        return;
      }
      leading = true;
      LOG.info("{}: {} {}", store.describe(), candidate,
          everElected ? "leads again" : "elected leader");
      everElected = true;
      notify(onElected);
    }
  }

  private void notify(Runnable r) {
    try {
      events.execute(() -> {
        try {
          r.run();
        } catch (RuntimeException e) {
          LOG.warn("a leadership listener of {} failed", store.describe(), e);
        }
      });
    } catch (RejectedExecutionException e) {
      // closed: no more notifications
    }
  }

  @Override
  public boolean isLeader() {
    return leading && !stopped && !store.isClosed();
  }

  @Override
  public String candidate() {
    return candidate;
  }

  /** The lease the candidate campaigns on now (it changes when one expired): for tests. */
  long lease() {
    return lease;
  }

  @Override
  public void close() {
    synchronized (this) {
      if (stopped) {
        return;
      }
      stopped = true;
      leading = false;
    }
    steps.shutdownNow();
    events.shutdown();
    closeQuietly(watcher);
    LeaseKeeper k = keeper;
    if (k != null) {
      k.close();
    }
    try {
      // revoking deletes the leader key (if we held it) at once: a standby need not wait the TTL
      client.getLeaseClient().revoke(lease).get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.info("{}: cannot revoke the leader lease of {} ({}); it expires in {} s",
          store.describe(), candidate, rootMessage(e), ttlSeconds);
    }
    store.released(this);
  }
}
