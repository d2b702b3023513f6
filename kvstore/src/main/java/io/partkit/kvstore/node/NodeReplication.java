package io.partkit.kvstore.node;

import static io.partkit.kvstore.node.LogRecords.clearRecord;
import static io.partkit.kvstore.node.LogRecords.putRecord;
import static io.partkit.kvstore.node.LogRecords.replicaRecord;
import static io.partkit.kvstore.node.LogRecords.replicatedPutRecord;
import static io.partkit.kvstore.node.LogRecords.stateRecord;
import static io.partkit.kvstore.node.NodeMigration.SERVING_PAGE;
import static io.partkit.kvstore.node.NodeMigration.pause;
import static io.partkit.kvstore.node.TcpKvNode.PEER_TIMEOUT;
import static io.partkit.kvstore.wire.Wire.ROLE_BACKUP;
import static io.partkit.kvstore.wire.Wire.ROLE_JOIN;
import static io.partkit.kvstore.wire.Wire.ROLE_PRIMARY;
import static io.partkit.kvstore.wire.Wire.ROLE_PRIMARY_ADDING;
import static io.partkit.kvstore.wire.Wire.ROLE_PRIMARY_SHRINK;
import static io.partkit.kvstore.wire.Wire.parseAddress;

import io.partkit.replica.node.access.SharedSecret;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.node.ReplicaLinks.Answer;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A node's side of replication: the CONFIGURE roles, and REPLICATE, CONFIRM and CATCHUP as a
 * backup serves them; as a primary, each write sent to every backup, each read confirmed by
 * every backup, and the backups levelled before it serves again.
 */
final class NodeReplication {

  /** Between two probes of a backup that timed out. */
  private static final long PROBE_INTERVAL_MILLIS = 200;

  private final NodeId id;
  private final WriteAheadLog log;
  private final ReplicaLinks links;
  private final SharedSecret secret; // null: admit every peer (loopback only)
  /** What the node pulled in to create copies (a catch-up's pages count too). */
  private final CopiesReceived received;
  /**
   * How long a primary waits for a backup before it names it a suspect (it waits on, up to the
   * replica timeout, for the answer or for the coordinator's new configuration).
   */
  private final long suspectAfterMillis;
  /**
   * One line per configuration change, suspicion named or lifted, shrink offered, adopted or
   * refused, and move timed out: what a stall is diagnosed from (never one per write).
   */
  private final NodeEvents events;

  NodeReplication(NodeId id, WriteAheadLog log, ReplicaLinks links, SharedSecret secret,
      CopiesReceived received, java.time.Duration suspectAfter, NodeEvents events) {
    this.id = id;
    this.events = events;
    this.log = log;
    this.links = links;
    this.secret = secret;
    this.received = received;
    this.suspectAfterMillis = suspectAfter.toMillis();
  }

  KvReply configure(NodePartition part, long epoch, Wire.Reader r) throws IOException {
    int role = r.i8();
    return switch (role) {
      case ROLE_PRIMARY, ROLE_PRIMARY_ADDING, ROLE_PRIMARY_SHRINK -> {
        int n = r.i32();
        if (n < 0 || n > 16) {
          yield KvReply.of(Status.ERROR, 0, "a partition has 0 to 16 backups, not " + n);
        }
        List<String> backups = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          String address = r.utf();
          try {
            parseAddress(address); // before any state change
          } catch (IllegalArgumentException e) {
            yield KvReply.of(Status.ERROR, 0, "node " + id + ": CONFIGURE: " + e.getMessage());
          }
          backups.add(address);
        }
        yield role == ROLE_PRIMARY_SHRINK ? shrink(part, epoch, backups)
            : configurePrimary(part, epoch, backups, role == ROLE_PRIMARY_ADDING);
      }
      case ROLE_BACKUP -> configureBackup(part, epoch);
      case ROLE_JOIN -> join(part, epoch, r.i64());
      default -> KvReply.of(Status.ERROR, 0, "unknown CONFIGURE role " + role);
    };
  }

  /**
   * Makes this node the primary at {@code epoch}. With {@code adding}, the listed replicas join
   * as empty backups that catch up (they get every write from now on and copy the rest with
   * CATCHUP); without, the list is the exact set of backups, already at {@code epoch} (after a
   * failover they were moved there first, which fenced the old primary), and they are levelled
   * before the first request is served.
   */
  private KvReply configurePrimary(NodePartition part, long epoch, List<String> backups,
      boolean adding) throws IOException {
    if (adding) {
      // The join below holds the partition's lock: a joiner this node cannot reach (a backup
      // taken out on suspicion, still cut off) would stall its writes for the replica timeout.
      // The probe gets the suspicion deadline, not the replica timeout: the executor's review
      // waits for this answer, and while it waits it reads no suspicion anywhere.
      byte[] probe = NodeConnection.request(Wire.SUSPECTS, 0, 0).toBytes(); // takes no lock
      List<CompletableFuture<Answer>> probes = links.sendAll(backups, probe);
      for (int i = 0; i < probes.size(); i++) {
        Answer answer;
        try {
          answer = probes.get(i).get(suspectAfterMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException | InterruptedException e) {
          if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
          }
          answer = null;
        }
        if (answer == null || answer.unanswered()) {
          String why = "cannot reach the joining backup " + backups.get(i) + ": "
              + (answer == null ? "no answer within " + suspectAfterMillis + " ms"
                  : answer.reply());
          events.say(part.id, epoch, "CONFIGURE primary adding " + backups + " refused: " + why);
          return KvReply.of(Status.UNAVAILABLE, part.epoch, "partition " + part.id + " on " + id
              + " " + why);
        }
      }
    }
    long seq;
    synchronized (part) {
      boolean fresh = part.state == PartitionState.ABSENT && part.epoch == 0;
      boolean fromOwned = part.state == PartitionState.OWNED && epoch >= part.epoch;
      boolean fromBackup = part.state == PartitionState.BACKUP && epoch >= part.epoch
          && !part.catchingUp && !part.catchupLost;
      if (adding && !(fromOwned && epoch == part.epoch)) {
        return refused(part, epoch, "CONFIGURE adding backups at epoch " + epoch
            + " (only the primary at its own epoch adds backups)");
      }
      if (!(fresh || fromOwned || fromBackup) || part.tracking != null) {
        return refused(part, epoch, "CONFIGURE primary at epoch " + epoch);
      }
      String was = was(part);
      List<String> all = new ArrayList<>();
      if (adding) {
        // A replica joined again (its catch-up was cut) starts over: level the others without
        // it, and put the old list back if the join fails, since only the coordinator's table
        // decides who is a replica.
        List<String> before = part.backups;
        List<String> others = before.stream().filter(b -> !backups.contains(b)).toList();
        if (others.size() != before.size()) {
          part.backups = others;
          part.synced = false;
        }
        KvReply unsynced = syncBackups(part); // a joiner starts level with every replica
        byte[] join = NodeConnection.request(Wire.CONFIGURE, part.id, epoch).i8(ROLE_JOIN)
            .i64(part.seq).toBytes();
        String failure = unsynced != null ? unsynced.toString()
            : firstFailure(backups, links.callAll(backups, join));
        if (failure != null) {
          part.backups = before;
          part.synced = false;
          events.say(part.id, epoch, "CONFIGURE primary adding " + backups + " failed: "
              + failure);
          return KvReply.of(Status.UNAVAILABLE, part.epoch, "partition " + part.id + " on " + id
              + " could not add backups " + backups + ": " + failure);
        }
        all.addAll(others);
        all.addAll(backups);
      } else {
        all.addAll(backups);
      }
      if (fresh) {
        log.append(clearRecord(part.id));
        part.data.clear();
      }
      part.state = PartitionState.OWNED;
      part.epoch = epoch;
      part.moveEpoch = 0;
      part.backups = List.copyOf(all);
      part.suspects = List.of();
      part.suspectTimedOut = false;
      part.catchingUp = false;
      part.fresh = null;
      part.synced = adding || all.isEmpty();
      log.append(stateRecord(part));
      seq = log.append(replicaRecord(part));
      events.say(part, "CONFIGURE primary" + (adding ? " adding " + backups : "")
          + " with backups " + part.backups + " (was " + was + ")");
    }
    log.awaitDurable(seq);
    return KvReply.ok(epoch, null);
  }

  /**
   * Makes this replica a backup at {@code epoch}, keeping its data. Moving a backup to a newer
   * epoch fences the primary of the older one: that primary needs every backup to take each
   * write and to confirm each read at its own epoch, so from then on it can do neither.
   */
  private KvReply configureBackup(NodePartition part, long epoch) throws IOException {
    long seq;
    synchronized (part) {
      if (part.state == PartitionState.BACKUP && part.epoch == epoch) {
        return KvReply.ok(epoch, null);
      }
      // A primary may step down at its own epoch (a hand-over inside one reconfiguration); a
      // backup only moves forward.
      boolean demotion = part.state == PartitionState.OWNED && part.tracking == null
          && epoch >= part.epoch;
      boolean forward = part.state == PartitionState.BACKUP && epoch > part.epoch;
      if (!demotion && !forward) {
        return refused(part, epoch, "CONFIGURE backup at epoch " + epoch);
      }
      String was = was(part);
      part.state = PartitionState.BACKUP;
      part.epoch = epoch;
      part.moveEpoch = 0;
      part.backups = List.of();
      part.suspects = List.of();
      part.suspectTimedOut = false;
      part.synced = true;
      log.append(stateRecord(part));
      seq = log.append(replicaRecord(part));
      events.say(part, "CONFIGURE backup (was " + was + ")");
    }
    log.awaitDurable(seq);
    return KvReply.ok(epoch, null);
  }

  /**
   * Sent by a primary, under its partition's lock: this node becomes an empty backup at
   * {@code epoch} whose next write is {@code seq + 1}, catching up. A backup that caught up at
   * this epoch refuses: it must not lose its copy to a stray join.
   */
  private KvReply join(NodePartition part, long epoch, long seq) throws IOException {
    long logged;
    synchronized (part) {
      boolean again = part.state == PartitionState.BACKUP
          && (part.epoch < epoch || part.catchingUp || part.catchupLost);
      boolean deposed = part.state == PartitionState.OWNED && !part.backups.isEmpty()
          && part.epoch < epoch && part.tracking == null;
      if (!(part.state == PartitionState.ABSENT || again || deposed) || part.epoch > epoch
          || part.pulling) {
        return refused(part, epoch, "JOIN as a backup at epoch " + epoch);
      }
      String was = was(part);
      log.append(clearRecord(part.id));
      part.data.clear();
      part.state = PartitionState.BACKUP;
      part.epoch = epoch;
      part.moveEpoch = 0;
      part.seq = seq;
      part.lastKey = null;
      part.lastValue = null;
      part.backups = List.of();
      part.suspects = List.of(); // a primary deposed this way no longer asks for anything
      part.suspectTimedOut = false;
      part.catchingUp = true;
      part.catchupLost = false;
      part.fresh = new java.util.TreeSet<>(Arrays::compareUnsigned);
      log.append(stateRecord(part));
      logged = log.append(replicaRecord(part));
      events.say(part, "JOIN as an empty backup after write " + seq + ", catching up (was "
          + was + ")");
    }
    log.awaitDurable(logged);
    return KvReply.ok(epoch, null);
  }

  /** Backup: applies the primary's write number {@code seq}, durably, before answering. */
  KvReply replicate(NodePartition part, long epoch, long seq, byte[] key, byte[] value)
      throws IOException {
    if (key == null || value == null) {
      return KvReply.of(Status.ERROR, 0, "key and value must not be null");
    }
    long logged;
    synchronized (part) {
      if (part.state != PartitionState.BACKUP || part.epoch != epoch || part.catchupLost) {
        return part.refused(id, "REPLICATE at epoch " + epoch
            + (part.catchupLost ? " (restarted while catching up: join it again)" : ""));
      }
      if (seq == part.seq && Arrays.equals(key, part.lastKey)
          && Arrays.equals(value, part.lastValue)) {
        logged = log.lastAppended(); // sent again (a levelling after a lost answer): held
      } else if (seq != part.seq + 1) {
        return part.refused(id, "REPLICATE of write " + seq + " (this backup holds write "
            + part.seq + ")");
      } else {
        logged = log.append(replicatedPutRecord(part.id, seq, key, value));
        part.applyReplicated(seq, key, value);
        if (part.catchingUp) {
          part.fresh.add(key);
        }
      }
    }
    log.awaitDurable(logged);
    return KvReply.ok(epoch, null);
  }

  /**
   * Backup: confirms that it is still a backup at {@code epoch}, so no newer primary can have
   * served anything yet; answers its last write (int64 seq, bytes key, bytes value) and whether
   * it is still catching up (int8).
   */
  KvReply confirmEpoch(NodePartition part, long epoch) {
    synchronized (part) {
      if (part.state != PartitionState.BACKUP || part.epoch != epoch || part.catchupLost) {
        return part.refused(id, "CONFIRM at epoch " + epoch);
      }
      return KvReply.ok(epoch, new Wire.Writer().i64(part.seq).bytes(part.lastKey)
          .bytes(part.lastValue).i8(part.catchingUp ? 1 : 0).toBytes());
    }
  }

  /**
   * Backup catching up: copies the primary's committed data page by page, throttled like a
   * pre-copy, skipping the keys replicated since it joined (their values are newer than any
   * page's). Then it is caught up: a copy a failover may promote.
   */
  KvReply catchUp(NodePartition part, long epoch, String primary) throws IOException {
    InetSocketAddress from;
    try {
      from = parseAddress(primary);
    } catch (IllegalArgumentException e) {
      return KvReply.of(Status.ERROR, 0, "node " + id + ": CATCHUP: " + e.getMessage());
    }
    synchronized (part) {
      if (part.state == PartitionState.BACKUP && part.epoch == epoch && !part.catchingUp
          && !part.catchupLost) {
        return KvReply.ok(epoch, new Wire.Writer().i64(part.data.size()).toBytes());
      }
      if (part.state != PartitionState.BACKUP || part.epoch != epoch || !part.catchingUp
          || part.catchupLost || part.pulling) {
        return part.refused(id, "CATCHUP at epoch " + epoch);
      }
      part.pulling = true;
    }
    try (NodeConnection peer = NodeConnection.open(from, PEER_TIMEOUT, secret)) {
      byte[] after = null;
      boolean more = true;
      while (more) {
        long pageStart = System.nanoTime();
        KvReply reply = peer.call(NodeConnection.request(Wire.SNAPSHOT, part.id, epoch)
            .bytes(after).i32(SERVING_PAGE).toBytes());
        if (!reply.isOk()) {
          return KvReply.of(reply.status() == Status.ERROR ? Status.ERROR : Status.REFUSED,
              epoch, "catch-up of partition " + part.id + " from " + from + " failed: " + reply);
        }
        Wire.Reader page = new Wire.Reader(reply.value());
        int count = page.i32();
        synchronized (part) {
          if (part.state != PartitionState.BACKUP || part.epoch != epoch || !part.catchingUp) {
            return part.refused(id, "CATCHUP (joined again or moved meanwhile)");
          }
          long pageBytes = 0;
          for (int i = 0; i < count; i++) {
            byte[] key = page.bytes();
            byte[] value = page.bytes();
            after = key;
            pageBytes += key.length + value.length;
            if (!part.fresh.contains(key)) {
              log.append(putRecord(part.id, key, value));
              part.data.put(key, value);
            }
          }
          // every entry of the page came over the wire for this copy, kept or not
          received.page(count, pageBytes);
        }
        more = page.i8() != 0;
        if (more) {
          pause(System.nanoTime() - pageStart);
        }
      }
      long logged;
      synchronized (part) {
        if (part.state != PartitionState.BACKUP || part.epoch != epoch || !part.catchingUp) {
          return part.refused(id, "CATCHUP (joined again or moved meanwhile)");
        }
        part.catchingUp = false;
        part.fresh = null;
        received.completed();
        logged = log.append(replicaRecord(part)); // after every copied key
        events.say(part, "CAUGHT UP from " + primary + " (" + part.data.size() + " keys)");
      }
      log.awaitDurable(logged);
      return KvReply.ok(epoch, new Wire.Writer().i64(part.data.size()).toBytes());
    } finally {
      synchronized (part) {
        part.pulling = false;
      }
    }
  }

  /**
   * Primary, under the partition's lock: sends the next write to every backup. Null when all
   * hold it; otherwise the UNAVAILABLE answer (some may hold it, so its outcome is unknown and
   * the backups are levelled before the next request).
   */
  KvReply replicateToBackups(NodePartition part, byte[] key, byte[] value) throws IOException {
    KvReply waiting = awaitingRemoval(part);
    if (waiting != null) {
      return waiting;
    }
    long epoch = part.epoch;
    List<String> backups = part.backups;
    byte[] request = NodeConnection.request(Wire.REPLICATE, part.id, epoch)
        .i64(part.seq + 1).bytes(key).bytes(value).toBytes();
    Waited waited = await(part, epoch, backups, request, false);
    String failure;
    if (waited.offer() == null) {
      noteAnswers(part, epoch, backups, waited.answers());
      failure = firstFailure(backups, waited.answers());
      if (failure == null) {
        return null;
      }
    } else if (heldByAll(backups, waited.answers(), waited.offer().backups(), part, epoch)
        && adopt(part, waited.offer(), "by the write that waited on a suspect")) {
      // The coordinator committed a configuration at a newer epoch whose backups all hold this
      // write (each answered it at this epoch, before adopt() moved it to the new one, after
      // which it refuses this epoch); this node now leads exactly them at that
      // epoch, and logs and applies the write before answering. So every replica of the
      // committed list holds it: the guarantee an acknowledgement gives. The silent backups
      // are out of that list, and never a survivor of a later reconfiguration while a replica
      // of this epoch can be reached (docs/kvstore-replication.md, "Waiting on a suspect").
      return null;
    } else {
      failure = "the partition is being reconfigured at epoch " + waited.offer().epoch()
          + " with backups " + waited.offer().backups() + ", not all of which hold it";
    }
    part.synced = false;
    return KvReply.of(Status.UNAVAILABLE, part.epoch, "write to partition " + part.id + " on "
        + id + " not acknowledged (it may still take effect): " + failure);
  }

  /**
   * Whether every one of {@code kept} that is among {@code backups} answered OK (one that is
   * not is left out by {@link #adopt}); if not, says which did not (the write that waited
   * fails, unknown).
   */
  private boolean heldByAll(List<String> backups, List<Answer> answers, List<String> kept,
      NodePartition part, long epoch) {
    for (String backup : kept) {
      int i = backups.indexOf(backup);
      if (i >= 0 && (answers.get(i) == null || !answers.get(i).reply().isOk())) {
        events.say(part.id, epoch, "the write waiting on a suspect fails (unknown): the kept"
            + " backup " + backup + (answers.get(i) == null ? " has not answered it"
                : " answered " + answers.get(i).reply()));
        return false;
      }
    }
    return true;
  }

  /**
   * Primary: the answers of {@code backups} to {@code request} at {@code epoch}, waited for in
   * two stages. Up to the suspicion deadline, as a plain wait. Then the backups still silent are
   * named suspects (the coordinator reads them with SUSPECTS and may commit a configuration
   * without them), and the wait goes on until every backup answered or timed out (the replica
   * timeout), or until the executor offers a configuration at a newer epoch ({@link #shrink}).
   * Nothing fails at the suspicion deadline: a suspicion alone never decides anything.
   *
   * <p>A {@code confirm} (a CONFIRM: a read's, a failed compare-and-set's or a levelling's,
   * which change nothing anywhere) ends at an offer before the deadline too: it gives up with
   * MOVING and loses nothing. A levelling waits under the partition's lock, which the offer's
   * adoption needs: a levelling that began after a write failed on a cut would otherwise hold
   * the lock for the rest of its first stage, and the configuration that leaves both cut backups
   * out would wait that long to be adopted. A write keeps its
   * plain first stage: an offer ending it early would fail it (outcome unknown) where the
   * backups' answers, a moment later, would have acknowledged it.
   *
   * @return every answer and no offer; or, when an offer came first, the offer and the answers
   *     so far (null for a backup still silent)
   */
  private Waited await(NodePartition part, long epoch, List<String> backups, byte[] request,
      boolean confirm) {
    List<CompletableFuture<Answer>> calls = links.sendAll(backups, request);
    CompletableFuture<Void> all = CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
    try {
      if (confirm) {
        Waited moved = awaitFirstStage(part, epoch, calls, all);
        if (moved != null) {
          return moved;
        }
      } else {
        all.get(suspectAfterMillis, TimeUnit.MILLISECONDS);
      }
    } catch (TimeoutException e) {
      noteSilent(part, epoch, backups, calls);
      while (true) {
        CompletableFuture<Void> woken = part.offers.get(); // first: see NodePartition#offers
        NodePartition.Shrink offer = part.shrink.get();
        if (offer != null && offer.epoch() > epoch) {
          return Waited.offered(calls, offer);
        }
        CompletableFuture.anyOf(all, woken).join(); // every call ends within its timeout
        if (all.isDone()) {
          break;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the node is closing: the calls end by their timeout
    } catch (ExecutionException e) {
      throw new IllegalStateException("a replica call never fails, it answers", e);
    }
    List<Answer> answers = new ArrayList<>(calls.size());
    calls.forEach(c -> answers.add(c.join()));
    return new Waited(answers, null);
  }

  /**
   * A CONFIRM's first stage: until every answer, the suspicion deadline, or an offer of a newer
   * configuration, whichever comes first.
   *
   * @return the offer and the answers so far if an offer came first; null if every backup
   *     answered
   * @throws TimeoutException at the suspicion deadline
   */
  private Waited awaitFirstStage(NodePartition part, long epoch,
      List<CompletableFuture<Answer>> calls, CompletableFuture<Void> all)
      throws TimeoutException, InterruptedException, ExecutionException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(suspectAfterMillis);
    while (!all.isDone()) {
      CompletableFuture<Void> woken = part.offers.get(); // first: see NodePartition#offers
      NodePartition.Shrink offer = part.shrink.get();
      if (offer != null && offer.epoch() > epoch) {
        return Waited.offered(calls, offer);
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new TimeoutException();
      }
      CompletableFuture.anyOf(all, woken).get(left, TimeUnit.NANOSECONDS);
    }
    return null;
  }

  /** The answers {@link #await} waited for, and the offer that ended the wait, if one did. */
  private record Waited(List<Answer> answers, NodePartition.Shrink offer) {
    /** An offer ended the wait: the answers so far (null for a backup still silent). */
    static Waited offered(List<CompletableFuture<Answer>> calls, NodePartition.Shrink offer) {
      List<Answer> sofar = new ArrayList<>(calls.size());
      calls.forEach(c -> sofar.add(c.getNow(null)));
      return new Waited(sofar, offer);
    }
  }

  /**
   * Primary, past the suspicion deadline: names the backups that have not answered as suspects
   * of the configuration at {@code epoch} (their call has not ended, or ended without an
   * answer: a refused or broken connection), without the fail-fast a timeout brings (their
   * answer or their timeout decides that, in {@link #noteAnswers}). All of them at once: a
   * configuration that kept one of them would wait on it again.
   */
  private void noteSilent(NodePartition part, long epoch, List<String> addresses,
      List<CompletableFuture<Answer>> calls) {
    synchronized (part) {
      if (part.state != PartitionState.OWNED || part.epoch != epoch) {
        return;
      }
      List<String> named = nameSilent(part, addresses, calls);
      if (!named.isEmpty()) {
        events.say(part, "SUSPECT " + named + ": no answer within the suspicion deadline ("
            + suspectAfterMillis + " ms); suspects now " + part.suspects);
      }
    }
  }

  /**
   * Under the partition's lock, OWNED at the epoch the calls were made at: adds each of {@code
   * addresses} whose call has not ended, or ended without an answer, to the suspects (if it is
   * still a backup); no fail-fast.
   *
   * @return the ones named now (not suspects before)
   */
  private static List<String> nameSilent(NodePartition part, List<String> addresses,
      List<CompletableFuture<Answer>> calls) {
    List<String> suspects = new ArrayList<>(part.suspects);
    List<String> named = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      String backup = addresses.get(i);
      Answer answer = calls.get(i).getNow(null);
      if ((answer == null || answer.unanswered()) && part.backups.contains(backup)
          && !suspects.contains(backup)) {
        suspects.add(backup);
        named.add(backup);
      }
    }
    part.suspects = List.copyOf(suspects);
    return named;
  }

  /**
   * CONFIGURE primary, shrinking: the executor offers this primary, after the coordinator
   * committed it, the configuration at {@code epoch} with exactly {@code backups}, a subset of
   * its current backups ({@link #adopt} moves them to {@code epoch}). The offer is published
   * before the lock is taken, since a write waiting on a silent backup holds it: that write
   * adopts the configuration itself if every kept backup holds it ({@link
   * #replicateToBackups}), and reads and levellings waiting on the silent backup give up with
   * MOVING, which the client retries. Then, under the lock, the configuration is adopted if the
   * write did not already. Requests arriving meanwhile are answered MOVING ({@link
   * #reconfiguring}).
   */
  private KvReply shrink(NodePartition part, long epoch, List<String> backups)
      throws IOException {
    NodePartition.Shrink offer = new NodePartition.Shrink(epoch, List.copyOf(backups));
    events.say(part.id, epoch, "SHRINK offered: keep backups " + backups);
    part.shrink.set(offer);
    part.offers.getAndSet(new CompletableFuture<>()).complete(null); // after the offer
    try {
      long seq;
      synchronized (part) {
        boolean adopted = part.state == PartitionState.OWNED && part.epoch == epoch
            && offer.backups().containsAll(part.backups); // by the waiting write, or sent again
        // A kept backup this primary suspects (one that did not answer the waiting write's
        // move, most often) would only time the move out again while the lock is held.
        if (!adopted && (!silentKept(part, offer).isEmpty()
            || !adopt(part, offer, "by the CONFIGURE"))) {
          List<String> silent = silentKept(part, offer);
          if (!silent.isEmpty()) {
            events.say(part.id, epoch, "SHRINK refused: the kept backups " + silent
                + " are silent too (suspected at epoch " + part.epoch + ")");
            return KvReply.of(Status.UNAVAILABLE, part.epoch, "partition " + part.id + " on "
                + id + ": CONFIGURE shrinking to " + backups + " at epoch " + epoch
                + " not adopted: the kept backups " + silent + " are silent too (suspected at"
                + " epoch " + part.epoch + ")");
          }
          return refused(part, epoch, "CONFIGURE shrinking to " + backups + " at epoch " + epoch
              + " (only a primary at an older epoch, with no pre-copy running, adopts it)");
        }
        seq = log.lastAppended();
      }
      log.awaitDurable(seq);
      return KvReply.ok(epoch, null);
    } finally {
      part.shrink.compareAndSet(offer, null);
    }
  }

  /**
   * Primary, under the partition's lock: takes {@code offer} as its configuration if it can:
   * OWNED at an older epoch, no pre-copy running, and each offered backup that is one of its own
   * moved to the offer's epoch by this node first (so the old configuration can acknowledge
   * nothing more). The check comes before the move, under the lock: a replica that is not a
   * backup of this configuration (one with an old copy, taken out earlier and not joined again)
   * is never moved to the new epoch, where a later reconfiguration would take it for a whole
   * copy. Such a replica of the row is left out: it holds no whole copy at this epoch, so it is
   * not in the partition's replica set, and the review joins it again when it can (refusing the
   * offer instead would leave the general reconfiguration that follows waiting on this lock
   * while a write holds it, for up to the replica timeout, and the review waiting on that). The
   * backups are levelled before the next request is served.
   */
  private boolean adopt(NodePartition part, NodePartition.Shrink offer, String by)
      throws IOException {
    synchronized (part) {
      if (part.state != PartitionState.OWNED || part.tracking != null
          || offer.epoch() <= part.epoch) {
        events.say(part.id, offer.epoch(), "SHRINK not adopted " + by + ": it is "
            + was(part) + " with backups " + part.backups
            + (part.tracking != null ? ", a pre-copy running" : ""));
        return false;
      }
      List<String> keep = offer.backups().stream().filter(part.backups::contains).toList();
      if (!keep.isEmpty() && !moveAll(part, keep, offer.epoch())) {
        return false; // some may have moved: see shrink() for what the executor does then
      }
      String was = was(part) + " with backups " + part.backups;
      List<String> leftOut = offer.backups().stream().filter(b -> !keep.contains(b)).toList();
      part.epoch = offer.epoch();
      part.moveEpoch = 0;
      part.backups = keep;
      part.suspects = List.of();
      part.suspectTimedOut = false;
      part.synced = false;
      log.append(stateRecord(part));
      log.append(replicaRecord(part));
      events.say(part, "SHRINK adopted " + by + ": primary with backups " + part.backups
          + " (was " + was + ")" + (leftOut.isEmpty() ? ""
              : "; left out, not its backups: " + leftOut));
      return true;
    }
  }

  /**
   * Primary, under the partition's lock, OWNED at its old epoch: moves {@code backups} to be
   * backups at {@code epoch}, waiting for them no longer than the suspicion deadline (the lock
   * is held, and the executor waits): true if every one answered OK within it. A kept backup
   * that has not answered by then is named a suspect at the old epoch, as a silent REPLICATE
   * names one: a cut often reaches a primary's links at different moments, so a backup that
   * answered the waiting write can be cut by the time it is moved, and the next configuration
   * must leave it out too. A move still under way when this gives up may take effect later;
   * the executor's reconfiguration takes that into account (survivors come from the latest
   * epoch).
   */
  private boolean moveAll(NodePartition part, List<String> backups, long epoch) {
    byte[] move = NodeConnection.request(Wire.CONFIGURE, part.id, epoch).i8(ROLE_BACKUP)
        .toBytes();
    List<CompletableFuture<Answer>> calls = links.sendAll(backups, move);
    try {
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
          .get(suspectAfterMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // below: the silent ones are named
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    List<String> named = nameSilent(part, backups, calls);
    List<String> failed = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      Answer answer = calls.get(i).getNow(null);
      if (answer == null || !answer.reply().isOk()) {
        failed.add(backups.get(i) + ": " + (answer == null ? "no answer within "
            + suspectAfterMillis + " ms" : answer.reply()));
      }
    }
    if (!failed.isEmpty()) {
      events.say(part.id, epoch, "MOVE of the kept backups failed (the primary stays at epoch "
          + part.epoch + "): " + failed + (named.isEmpty() ? ""
              : "; named suspects " + named + ", suspects now " + part.suspects));
    }
    return failed.isEmpty();
  }

  /** Under the partition's lock: the backups {@code offer} keeps that this primary suspects. */
  private static List<String> silentKept(NodePartition part, NodePartition.Shrink offer) {
    if (part.state != PartitionState.OWNED || offer.epoch() <= part.epoch) {
      return List.of();
    }
    return offer.backups().stream().filter(part.suspects::contains).toList();
  }

  /**
   * Primary, under the partition's lock: MOVING while a configuration at a newer epoch is being
   * offered (the request would run at the old epoch, whose remaining backups have moved on), so
   * that the client retries once it is adopted; else null.
   */
  KvReply reconfiguring(NodePartition part) {
    NodePartition.Shrink offer = part.shrink.get();
    if (offer == null || offer.epoch() <= part.epoch || part.state != PartitionState.OWNED) {
      return null;
    }
    return KvReply.of(Status.MOVING, offer.epoch(), "partition " + part.id + " on " + id
        + " is being reconfigured at epoch " + offer.epoch());
  }

  /**
   * Primary, after reading: every backup must still be one at the read's epoch. Once one was
   * moved to a newer epoch (a failover fences the old primary that way before the new one
   * serves), this node may be deposed and its value stale: the read is refused instead.
   * Linearizable without clocks or leases, at the cost of a round trip per read.
   */
  KvReply confirmWithBackups(NodePartition part, long epoch, List<String> backups,
      String what) {
    if (backups.isEmpty()) {
      return null;
    }
    int partition = part.id;
    synchronized (part) {
      KvReply waiting = awaitingRemoval(part);
      if (waiting != null) {
        return waiting;
      }
    }
    byte[] request = NodeConnection.request(Wire.CONFIRM, partition, epoch).toBytes();
    Waited waited = await(part, epoch, backups, request, true);
    if (waited.offer() != null) {
      // not served, and it had no effect: the client asks again at the new epoch
      return KvReply.of(Status.MOVING, waited.offer().epoch(), what + " of partition "
          + partition + " on " + id + " not served: reconfigured at epoch "
          + waited.offer().epoch() + " while a backup was silent");
    }
    List<Answer> confirmed = waited.answers();
    noteAnswers(part, epoch, backups, confirmed);
    String failure = firstFailure(backups, confirmed);
    return failure == null ? null : KvReply.of(Status.UNAVAILABLE, epoch, what + " of partition "
        + partition + " on " + id + " not served: a backup did not confirm epoch " + epoch
        + " (a newer primary may exist): " + failure);
  }

  /**
   * Primary, under the partition's lock: brings every replica level with the most advanced one
   * (they differ by at most the one write whose replication failed or was cut by a crash or a
   * failover), so that all hold the same writes before this node serves again.
   */
  KvReply syncBackups(NodePartition part) throws IOException {
    if (part.synced || part.backups.isEmpty()) {
      return null;
    }
    KvReply waiting = awaitingRemoval(part);
    if (waiting != null) {
      return waiting;
    }
    List<String> backups = part.backups;
    Waited waited = await(part, part.epoch, backups,
        NodeConnection.request(Wire.CONFIRM, part.id, part.epoch).toBytes(), true);
    if (waited.offer() != null) {
      return KvReply.of(Status.MOVING, waited.offer().epoch(), "partition " + part.id + " on "
          + id + " is being reconfigured at epoch " + waited.offer().epoch());
    }
    List<Answer> answers = waited.answers();
    noteAnswers(part, part.epoch, backups, answers);
    String failure = firstFailure(backups, answers);
    if (failure != null) {
      return KvReply.of(Status.UNAVAILABLE, part.epoch, "partition " + part.id + " on " + id
          + " cannot level its backups: " + failure);
    }
    long[] seqs = new long[backups.size()];
    long max = part.seq;
    byte[] key = part.lastKey;
    byte[] value = part.lastValue;
    for (int i = 0; i < seqs.length; i++) {
      Wire.Reader r = new Wire.Reader(answers.get(i).reply().value());
      seqs[i] = r.i64();
      byte[] k = r.bytes();
      byte[] v = r.bytes();
      if (seqs[i] > max) {
        max = seqs[i];
        key = k;
        value = v;
      }
    }
    for (int i = 0; i <= seqs.length; i++) {
      long s = i < seqs.length ? seqs[i] : part.seq;
      if (max - s > 1 || s < max && key == null) {
        return KvReply.of(Status.ERROR, part.epoch, "replicas of partition " + part.id
            + " differ by more than one write (" + (i < seqs.length ? backups.get(i) : id)
            + " holds write " + s + ", another " + max + "): join that replica again");
      }
    }
    if (part.seq < max) {
      log.append(replicatedPutRecord(part.id, max, key, value));
      part.applyReplicated(max, key, value);
      part.markDirty(key);
    }
    List<String> behind = new ArrayList<>();
    for (int i = 0; i < seqs.length; i++) {
      if (seqs[i] < max) {
        behind.add(backups.get(i));
      }
    }
    if (!behind.isEmpty()) {
      byte[] push = NodeConnection.request(Wire.REPLICATE, part.id, part.epoch).i64(max)
          .bytes(key).bytes(value).toBytes();
      failure = firstFailure(behind, links.callAll(behind, push));
      if (failure != null) {
        return KvReply.of(Status.UNAVAILABLE, part.epoch, "partition " + part.id + " on " + id
            + " cannot level its backups: " + failure);
      }
    }
    part.synced = true;
    return null;
  }

  /**
   * Primary: keeps {@link NodePartition#suspects} to the backups whose last call at {@code
   * epoch} went unanswered within the replica timeout (an answer, even a refusal, lifts the
   * suspicion: a backup that refuses was moved on by the coordinator, which already decided).
   * The coordinator reads them with SUSPECTS and takes them out of the replica set, as
   * PacificA's primary asks its configuration manager to. A backup that timed out is probed
   * from then on (see {@link #awaitingRemoval}).
   */
  private void noteAnswers(NodePartition part, long epoch, List<String> addresses,
      List<Answer> answers) {
    synchronized (part) {
      if (part.state != PartitionState.OWNED || part.epoch != epoch) {
        return; // reconfigured meanwhile: that configuration starts with no suspicion
      }
      List<String> before = part.suspects;
      List<String> suspects = new ArrayList<>(before);
      for (int i = 0; i < answers.size(); i++) {
        String backup = addresses.get(i);
        suspects.remove(backup);
        if (answers.get(i).unanswered() && part.backups.contains(backup)) {
          suspects.add(backup);
          if (answers.get(i).timedOut() && !part.suspectTimedOut) {
            events.say(part, "SUSPECT " + backup + " timed out (the replica timeout): the"
                + " request fails, the next ones fail at once while it is probed");
          }
          part.suspectTimedOut |= answers.get(i).timedOut();
        }
      }
      part.suspects = List.copyOf(suspects);
      List<String> named = suspects.stream().filter(b -> !before.contains(b)).toList();
      List<String> lifted = before.stream().filter(b -> !suspects.contains(b)).toList();
      if (!named.isEmpty() || !lifted.isEmpty()) {
        events.say(part, (named.isEmpty() ? "" : "SUSPECT " + named + ": no answer; ")
            + (lifted.isEmpty() ? "" : "SUSPICION LIFTED " + lifted + ": answered; ")
            + "suspects now " + suspects);
      }
      if (suspects.isEmpty()) {
        part.suspectTimedOut = false;
      } else if (part.suspectTimedOut && !part.probing) {
        part.probing = true;
        try {
          links.runAsync(() -> probe(part, epoch));
        } catch (java.util.concurrent.RejectedExecutionException e) {
          part.probing = false; // the node is closing
        }
      }
    }
  }

  /**
   * Primary: calls the suspects with SUSPECTS (which takes no lock on either side) until they
   * answer or the partition is reconfigured, so that it serves again as soon as a cut heals if
   * the coordinator has not taken them out by then.
   */
  private void probe(NodePartition part, long epoch) {
    byte[] request = NodeConnection.request(Wire.SUSPECTS, 0, 0).toBytes();
    try {
      while (true) {
        List<String> suspects;
        synchronized (part) {
          if (!part.suspectTimedOut || part.state != PartitionState.OWNED
              || part.epoch != epoch) {
            return;
          }
          suspects = part.suspects;
        }
        noteAnswers(part, epoch, suspects, links.callAll(suspects, request));
        Thread.sleep(PROBE_INTERVAL_MILLIS); // a timer between probes, not a wait for a race
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the node is closing
    } finally {
      synchronized (part) {
        part.probing = false;
      }
    }
  }

  /**
   * Primary, under the partition's lock: the UNAVAILABLE answer while a backup that timed out
   * has not answered since (it is probed meanwhile, and the coordinator is asked to take it
   * out), else null. Waiting on it again would hold the lock for another replica timeout, and
   * the reconfiguration that takes it out needs the lock.
   */
  private KvReply awaitingRemoval(NodePartition part) {
    if (part.suspects.isEmpty() || !part.suspectTimedOut) {
      return null;
    }
    return KvReply.of(Status.UNAVAILABLE, part.epoch, "partition " + part.id + " on " + id
        + " is not served while the coordinator takes out the backups it cannot reach: "
        + part.suspects);
  }

  /** A refusal of an administrative step (never of a client's request), said in the log. */
  private KvReply refused(NodePartition part, long epoch, String step) {
    KvReply refusal = part.refused(id, step);
    events.say(part.id, epoch, "REFUSED " + refusal.message());
    return refusal;
  }

  /** The partition's state and epoch, for "was ..." in an event line. */
  private static String was(NodePartition part) {
    return part.state + " at epoch " + part.epoch + (part.catchingUp ? " catching up" : "");
  }

  private static String firstFailure(List<String> addresses, List<Answer> answers) {
    for (int i = 0; i < answers.size(); i++) {
      if (!answers.get(i).reply().isOk()) {
        return addresses.get(i) + ": " + answers.get(i).reply();
      }
    }
    return null;
  }

  /** Forgets a replica's configuration, in memory and in the log, as its data goes. */
  void resetReplica(NodePartition part) throws IOException {
    part.backups = List.of();
    part.seq = 0;
    part.lastKey = null;
    part.lastValue = null;
    part.catchingUp = false;
    part.catchupLost = false;
    part.fresh = null;
    part.synced = true;
    log.append(replicaRecord(part));
  }
}
