package io.partkit.replica;

import io.partkit.replica.Message.Ack;
import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Confirm;
import io.partkit.replica.Message.Confirmed;
import io.partkit.replica.Message.Drain;
import io.partkit.replica.Message.Drained;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Level;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Message.Ping;
import io.partkit.replica.Message.Pong;
import io.partkit.replica.Message.Refuse;
import io.partkit.replica.Message.Replicate;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Resume;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Scan;
import io.partkit.replica.Message.Snapshot;
import io.partkit.replica.Message.Suspect;
import io.partkit.replica.Message.Taken;
import io.partkit.replica.Message.Write;
import io.partkit.replica.Record.Born;
import io.partkit.replica.Record.Checkpoint;
import io.partkit.replica.Record.CheckpointPage;
import io.partkit.replica.Record.Configured;
import io.partkit.replica.Record.LevelBegun;
import io.partkit.replica.Record.Rebased;
import io.partkit.replica.Record.SnapshotPage;
import io.partkit.replica.Record.Snapshotted;
import io.partkit.replica.Record.Merge;
import io.partkit.replica.Record.Split;
import io.partkit.replica.Record.Written;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * One node's partitions as a deterministic state machine: {@link #step} a message, {@link #tick}
 * the clock, then take {@link #ready} and act on it (records durable first, then messages).
 * Single-threaded: the driver calls it from one thread at a time.
 *
 * <p>Rounds. Per partition, a primary orders requests in rounds, one round at a time: when it is
 * free it takes every queued request (up to {@link #ROUND_LIMIT} and {@link #ROUND_BYTES}) as one
 * round, as if executed one after another in request order. A round starts when the driver takes
 * its {@link #ready}, so every request stepped in since the last Ready can join it. Each write (a
 * PUT, or a CAS whose expectation holds of the state the round's earlier writes leave) is logged
 * under the next seq and replicated to every backup, one {@link Replicate} per write; a backup
 * acknowledges the highest seq it holds, so one {@link Ack} covers many. The round's records go
 * in one {@link Ready} (one sync under the driver's group commit), the one after the Ready that
 * sends its replication: the replication does not depend on them, so the primary's sync overlaps
 * its backups' instead of preceding them, and the round's replies, which come only after a
 * backup's answer, still leave after the records. When every backup holds the round's last
 * write, the writes become visible and every request of the round is answered, in request order:
 * a read with the value the round's earlier writes leave, a CAS that failed its expectation with
 * its failure. A round that writes nothing has its reads confirmed by one {@link Confirm}: every
 * backup says it is still at the primary's epoch and level. A round that writes needs no
 * confirmation besides its acknowledgements, which say the same at a moment after its reads
 * arrived. A round that only fails CASes is answered at once: it changes nothing, and the state
 * it was decided on is visible. A {@link Scan} is a read of a range: it joins rounds as a read
 * does, and its {@link Page} is taken, in its turn, of the state the round's earlier writes
 * leave.
 *
 * <p>Why answering in request order at the end is linearizable: no request of a round is answered
 * before the round completes, nor arrived after it began, so all of them are concurrent and any
 * order among them is allowed; its writes become visible to reads only at completion, so the round
 * takes effect at one moment, between the replies of the previous round and the requests of the
 * next. Answering a failed CAS early could show a value the round has not made visible (a write
 * before it in the round, that a lost round may never make visible), so it waits with the rest. A
 * round that is lost answers nothing (the primary crashed) or its writes UNKNOWN and its reads
 * and failed CASes FAIL (the primary deposed, demoted or split); a primary the control keeps
 * carries the round's writes into the new epoch (their records are in its log) and answers them
 * once the new level holds, and asks its reads and CASes again. A planned change of primary (a
 * migration's cut-over, a handover) loses no round: the control first has the primary
 * {@link Drain} the partition, which finishes its round in progress and starts none, and changes
 * the primary once it hears {@link Drained}; what waits at the old primary then fails, never
 * having taken effect.
 *
 * <p>Levels. Each epoch begins with a level: the primary logs a fresh level number and brings
 * each backup to its state; a backup takes replication only under the level it holds. A backup
 * refuses anything from an older epoch, which is what deposes a primary the control has replaced
 * (a node the newer epoch took out of a partition whose sender still leads it says nothing: that
 * primary is not deposed, only told late).
 * A copy's state is named by the level it was last made under (begun as primary, taken as backup)
 * and the seq it is at: every copy of one level started from one state and took that level's
 * writes in seq order. So a new level is first offered by name ({@link Level}): a backup whose
 * state is of the level the primary's is, a few writes behind or ahead (a failover, a migration's
 * cut-over, a primary restarted without its unsynced writes), reaches the primary's state by the
 * offer's last writes or by undoing its own, in one logged record; only a backup that cannot is
 * sent the whole partition ({@link Snapshot}). The backups a configuration names joining (not
 * known to the control to be level) are levelled while the partition serves: nothing waits for
 * them until one holds every write the primary made visible; from then on every round does, and
 * once none is joining the control hears the partition {@link Levelled}.
 *
 * <p>Splits. Each partition has a {@link Numbering} (hash halves, key spans or token spans, at a
 * modulus) that its configurations and snapshots carry. A node that learns of a larger modulus
 * than it holds (a split the control decided) first divides its copy: one {@link Split} record
 * per doubling, with the cut the numbering names, moves the keys the partition no longer holds to
 * the new partition, which keeps them until its own
 * configuration arrives. Primary and backups alike divide their copies, so a replicated partition
 * splits without moving data between nodes. Once divided, a primary refuses keys it no longer
 * holds (a client with an old table is sent back to it); a primary that learns of the split from
 * another partition's configuration stops serving until configured in the new numbering; a backup
 * drops the level it held and moves one epoch past the old numbering's (the split's epoch is at
 * least that), so the old numbering's replication and reads are refused as stale, as is a
 * snapshot of the old numbering.
 *
 * <p>Merges. A numbering of a later generation (two halves the control merged, see {@link
 * Numbering#merge}) makes a node that holds both halves combine them first, by one {@link Merge}
 * record: the lower takes the higher's keys at half the modulus, the higher's copy is emptied and
 * fenced one epoch past its last, and both states lose their names, so the new epoch's primary
 * levels every backup with the whole copy. A copy of the lower half that was never divided holds
 * the merged keys already and is only renumbered, by its configuration. As at a split, a serving
 * primary of either half stops (its round in flight answered unknown) and a backup of the lower
 * steps one epoch past the old numbering's.
 */
public final class Replica implements StateMachine {

  /** Requests waiting behind the round in progress, per partition; more are refused. */
  static final int QUEUE_LIMIT = 256;

  /** At most this many requests make one round. */
  static final int ROUND_LIMIT = 64;

  /**
   * A round takes requests while their keys and values come to at most this many bytes (its
   * first request whatever its size), so that one round's replication stays a modest burst.
   */
  static final int ROUND_BYTES = 1 << 20;

  /** How many bytes of a value a CAS's mismatch names at most ({@link #brief}). */
  static final int BRIEF_BYTES = 32;

  /** A scan's page holds at most this many entries, whatever its limit. */
  public static final int PAGE_ENTRIES = 1024;

  /**
   * A scan's page stops before the entry that would take its keys and values past this many bytes
   * (its first entry whatever its size), so that a reply fits a driver's frame.
   */
  public static final int PAGE_BYTES = 1 << 20;

  /**
   * A copy keeps its last writes, with the values they replaced, up to this many (and {@link
   * #TAIL_BYTES}): enough to cover a round in flight on either side of a change of primary, so a
   * level offered by name ({@link Level}) reaches a backup a round behind or ahead.
   */
  static final int TAIL_WRITES = 2 * ROUND_LIMIT;

  /** The bytes of keys and values a copy's last writes ({@link #TAIL_WRITES}) hold at most. */
  static final long TAIL_BYTES = 2L * ROUND_BYTES;

  /**
   * A whole copy of a partition ({@link Snapshot}) goes in pages of at most this many entries by
   * default (and about {@link #SNAPSHOT_PAGE_BYTES}): a page is built, sent, logged and taken
   * between the requests of the partitions the two nodes serve meanwhile, so it must be small
   * enough not to hold them up.
   */
  public static final int SNAPSHOT_PAGE_ENTRIES = 512;

  /** A copy's page stops before the entry that would take it past this many bytes. */
  static final int SNAPSHOT_PAGE_BYTES = 256 << 10;

  /**
   * A {@link #checkpoint} puts a partition's data in pages of about this many bytes (1 MiB): a
   * record each, well under what a driver's record may hold with one entry of the largest size.
   */
  public static final int CHECKPOINT_PAGE_BYTES = 1 << 20;

  /**
   * The pages of a copy in flight at most, sent and not yet {@link Taken}: the copy goes at the
   * pace its backup takes it, never queueing a whole partition behind the nodes' other traffic.
   */
  static final int COPY_WINDOW = 4;

  /**
   * The level's writes a backup holds back while a copy's pages arrive, at most (more are
   * dropped, and come again from its primary's last writes or a later copy).
   */
  static final int GATHERED_WRITES = 1 << 16;

  /** A time long before any tick, whose distance to any tick cannot overflow. */
  static final long NEVER = Long.MIN_VALUE / 4;

  private final int self;
  private final Timing timing;
  private final int pageEntries;
  /** This node's incarnation ({@link #incarnate}); 0: none, every configuration is taken. */
  private long incarnation;
  /** The control named this incarnation in a heartbeat: configurations are taken from then on. */
  private boolean acknowledged;
  private final TreeMap<Integer, Part> parts = new TreeMap<>();
  /** Requests answered as primary, by partition, since this replica was made: its load. */
  private final TreeMap<Integer, Long> served = new TreeMap<>();
  private final List<Record> records = new ArrayList<>();
  private final List<Envelope> out = new ArrayList<>();
  /**
   * A round's own records, held back from the Ready that sends its replication to the next one:
   * the replication does not depend on them, so the primary's sync runs while its backups sync.
   */
  private final List<Record> heldBack = new ArrayList<>();
  /** Partitions that may start a round (a request queued, a round done): started in ready. */
  private final TreeSet<Integer> toStart = new TreeSet<>();
  /** The partitions with whole copies under way ({@link Part#copies}). */
  private final TreeSet<Integer> copying = new TreeSet<>();
  private long now;
  private long rounds;

  /** A node with no partitions (a fresh data directory). */
  public Replica(int self, Timing timing) {
    this(self, timing, SNAPSHOT_PAGE_ENTRIES);
  }

  /**
   * A node with no partitions whose whole copies go in pages of at most {@code pageEntries}
   * entries (the simulator's partitions are small: it pages them finely to exercise paging).
   */
  public Replica(int self, Timing timing, int pageEntries) {
    if (pageEntries < 1) {
      throw new IllegalArgumentException("a snapshot page holds at least 1 entry, got "
          + pageEntries);
    }
    this.self = self;
    this.timing = timing;
    this.pageEntries = pageEntries;
  }

  /**
   * A node restarted from its durable records: every record is applied in order; a partition it
   * was primary of is levelled again before it serves (its backups may hold a write it lost). A
   * restarted copy keeps none of its last writes ({@link #TAIL_WRITES}): a {@link #checkpoint}
   * holds none, and a restart from either must be the same.
   */
  public static Replica restore(int self, Timing timing, List<Record> log) {
    return restore(self, timing, log, SNAPSHOT_PAGE_ENTRIES);
  }

  /**
   * {@link #restore} with whole copies in pages of at most {@code pageEntries} entries. The pages
   * of a copy that had not all arrived are kept: its next pages complete it, or a copy begun
   * again replaces it.
   */
  public static Replica restore(int self, Timing timing, List<Record> log, int pageEntries) {
    Restoring r = restoring(self, timing, pageEntries);
    log.forEach(r::replay);
    return r.restored();
  }

  /**
   * A {@link #restore} fed its records one at a time: a driver that reads its log a record at a
   * time holds the state and one record, never the log whole.
   */
  public static Restoring restoring(int self, Timing timing, int pageEntries) {
    return new Restoring(new Replica(self, timing, pageEntries));
  }

  /** A replica being restored from its records, fed to it in order ({@link #restoring}). */
  public static final class Restoring {
    private Replica replica;

    private Restoring(Replica replica) {
      this.replica = replica;
    }

    /** Applies the log's next record. */
    public void replay(Record rec) {
      if (replica == null) {
        throw new IllegalStateException("the replica is restored: it takes no more records");
      }
      replica.replay(rec);
    }

    /** The replica the records so far restore, as {@link #restore} gives it; once. */
    public Replica restored() {
      Replica r = replica;
      if (r == null) {
        throw new IllegalStateException("the replica was restored already");
      }
      replica = null;
      for (Part p : r.parts.values()) {
        p.mustLevel = p.role == Role.PRIMARY;
        forgetTail(p);
      }
      return r;
    }
  }

  /**
   * The records that restore this node's durable state: one {@link Checkpoint} per partition it
   * knows (absent ones too: their epoch, modulus and level numbers still fence and number), in
   * partition order, each followed by the pages of a copy of it still arriving ({@link
   * SnapshotPage}: the rest of a log compacted to its checkpoint may hold the copy's other
   * pages). {@link #restore} from them gives the state {@link #restore} from the log gave, so a
   * driver may rewrite the log to them.
   *
   * <p>Only for a replica just restored, before it is stepped, ticked or asked for its {@link
   * #ready}: its state is then exactly what its durable records give. At run time the state may be
   * ahead of them (records not yet taken or made durable, a round's records held back), and a
   * checkpoint then would make durable what the driver has not.
   */
  public List<Record> checkpoint() {
    return checkpoint(CHECKPOINT_PAGE_BYTES);
  }

  /**
   * {@link #checkpoint} with each partition's data in pages of about {@code pageBytes} (keys and
   * values, with 8 bytes an entry; a page's first entry whatever its size): a partition of more
   * is its {@link CheckpointPage} records, then its {@link Checkpoint} with the last page. A
   * restore from a log that ends among them finds the partition as it was before them. The
   * pages of a checkpoint the restore had not seen complete (its log ended among them) follow
   * the partition's records, so that the rest of a log folded in batches completes them.
   */
  public List<Record> checkpoint(long pageBytes) {
    if (pageBytes < 1) {
      throw new IllegalArgumentException("a checkpoint page holds at least 1 byte, got "
          + pageBytes);
    }
    List<Record> checkpoint = new ArrayList<>(parts.size() + 1);
    if (incarnation != 0) {
      checkpoint.add(new Born(incarnation));
    }
    for (Part p : parts.values()) {
      CheckpointPages.Cut cut = CheckpointPages.cut(p.id, p.data, pageBytes);
      checkpoint.addAll(cut.pages());
      checkpoint.add(new Checkpoint(p.id, p.epoch, p.configured, p.role, p.primary, p.backups,
          p.deposed, p.level, p.nextLevel, p.levelled, p.seq, p.numbering, p.inherited,
          p.stateEpoch, p.stateLevel, cut.last(), cut.pages().size()));
      if (p.gathering != null) {
        checkpoint.addAll(p.gathering.pages);
      }
      if (p.checkpointPages != null) {
        checkpoint.addAll(p.checkpointPages.pages());
      }
    }
    return checkpoint;
  }

  /**
   * Names this node's incarnation when its log named none (it started on an empty log: a new
   * node, or one whose disk was wiped), logged as {@link Born}; a node restored from a log that
   * names one keeps it. From then on it takes no configuration until the control names this
   * incarnation in a heartbeat ({@link Ping}), and answers no replica traffic: a control that
   * knew an earlier one counts that one's copies lost first, so the node never serves, or is
   * counted as holding, what its wiped disk held; and the heartbeat's fences (every partition's
   * configuration) come first, so it refuses the primaries its lost log had fenced off. A driver
   * that never calls this takes every configuration.
   *
   * @param fresh a number no earlier incarnation of this node had, not 0
   * @return the incarnation in effect
   */
  public long incarnate(long fresh) {
    if (fresh == 0) {
      throw new IllegalArgumentException("an incarnation is not 0");
    }
    if (incarnation == 0) {
      incarnation = fresh;
      records.add(new Born(fresh));
    }
    return incarnation;
  }

  /** This node's incarnation ({@link #incarnate}), 0 if none. */
  public long incarnation() {
    return incarnation;
  }

  /** This node's endpoint number. */
  public int self() {
    return self;
  }

  /** Handles one message. */
  @Override
  public void step(Envelope e) {
    Message m = e.message();
    int from = e.from();
    if (incarnation != 0 && !acknowledged && (m instanceof Replicate || m instanceof Confirm
        || m instanceof Snapshot || m instanceof Level)) {
      // Until the control names this incarnation it may be one whose wiped log had fenced off
      // the sender: no answer, which the sender takes for a slow backup.
      return;
    }
    if (m instanceof Request r) {
      admit(new Pending(from, r, null));
    } else if (m instanceof Scan s) {
      admit(new Pending(from, null, s));
    } else if (m instanceof Replicate r) {
      onReplicate(from, r);
    } else if (m instanceof Confirm c) {
      onConfirm(from, c);
    } else if (m instanceof Snapshot s) {
      onSnapshot(from, s);
    } else if (m instanceof Level l) {
      onLevel(from, l);
    } else if (m instanceof Ack a) {
      onAck(from, a);
    } else if (m instanceof Taken t) {
      onTaken(from, t);
    } else if (m instanceof Confirmed c) {
      onConfirmed(from, c);
    } else if (m instanceof Refuse r) {
      onRefuse(from, r);
    } else if (m instanceof Configure c) {
      onConfigure(c);
    } else if (m instanceof Drain d) {
      onDrain(d);
    } else if (m instanceof Resume r) {
      onResume(r);
    } else if (m instanceof Ping p) {
      if (incarnation != 0 && p.incarnation() == incarnation && !acknowledged) {
        acknowledged = true;
        for (Configure c : p.fences()) {
          onConfigure(c); // the epochs its log may have promised, before anything else
        }
      }
      send(from, new Pong(p.n(), held(), served, incarnation,
          incarnation == 0 || acknowledged));
    }
    // replies, suspicions and pongs are for clients and the control
  }

  /** The clock moved to {@code nowMillis}: levels resume, requests are resent, suspects named. */
  @Override
  public void tick(long nowMillis) {
    now = Math.max(now, nowMillis);
    for (Part p : parts.values()) {
      if (p.role != Role.PRIMARY || p.deposed) {
        continue;
      }
      if (p.drainUntil != NEVER && p.drainUntil <= now) {
        // no new configuration came: the control changed its mind, or its word was lost
        p.drainUntil = NEVER;
        toStart.add(p.id);
      }
      if (p.mustLevel) {
        beginLevel(p);
      } else if (!p.levelled) {
        // A snapshot is the whole partition: one that takes longer than the resend interval to
        // copy must not be sent again and again behind itself, so each resend waits twice as
        // long as the one before (up to the suspicion time).
        long wait = Math.min(timing.resendMillis() << Math.min(p.levelResends, 20),
            timing.suspectMillis());
        if (resendToSilent(p, wait, silent -> sendLevel(p, silent))) {
          p.levelResends++;
        }
      } else {
        if (p.current != null) {
          resendToSilent(p, timing.resendMillis(),
              silent -> silent.forEach(b -> sendRound(p, b)));
        }
        catchUpJoining(p);
      }
    }
  }

  /**
   * Brings a joining backup of a serving primary toward its state once it has gone quiet (no
   * acknowledgement further on for a while: a message lost): the writes it has not acknowledged,
   * from this copy's last writes, after a resend interval; or, when those do not reach back far
   * enough (or it acknowledged nothing of the level), the whole partition as it is now, after
   * the suspicion time, doubling each time: a whole copy of a large partition takes long to send
   * and to take, and one sent behind another only delays both.
   */
  private void catchUpJoining(Part p) {
    List<Integer> whole = new ArrayList<>();
    for (int b : p.joining) {
      long acked = p.joinAcked.getOrDefault(b, -1L);
      long quiet = now - p.joinHeardAt.getOrDefault(b, p.levelStartedAt);
      if (acked >= p.seq) {
        continue;
      }
      if (acked >= 0 && !p.tail.isEmpty() && p.tail.peekFirst().seq() <= acked + 1) {
        if (quiet >= timing.resendMillis()) {
          for (Change c : p.tail) {
            if (c.seq() > acked) {
              send(b, new Replicate(p.id, p.epoch, p.level, c.seq(), c.key(), c.value()));
            }
          }
          p.joinHeardAt.put(b, now);
        }
      } else if (quiet >= timing.suspectMillis() << Math.min(p.joinResends, 10)) {
        whole.add(b);
        p.joinHeardAt.put(b, now);
      }
    }
    if (!whole.isEmpty()) {
      p.joinResends++;
      copyTo(p, whole);
    }
  }

  /**
   * Has {@code resend} send again to the backups that have not answered once {@code wait} has
   * passed since it was sent (messages may be lost), and names them as suspects once the
   * suspicion time has. A backup taking a copy page by page is not silent. Whether it sent
   * again.
   */
  private boolean resendToSilent(Part p, long wait, Consumer<List<Integer>> resend) {
    boolean resent = false;
    if (now - p.sentAt >= wait) {
      List<Integer> silent = new ArrayList<>();
      for (int b : p.levelled ? required(p) : p.backups) {
        if (!p.answered.contains(b) && !copyProgressing(p, b)) {
          silent.add(b);
        }
      }
      resend.accept(silent);
      p.sentAt = now;
      resent = true;
    }
    suspectSilent(p);
    return resent;
  }

  /**
   * What to make durable, then send, since the last call. Rounds start here; the records of the
   * rounds the previous call started come first (held back one Ready, see the class), so a driver
   * that asks again as soon as it has acted on a Ready makes them durable soonest.
   */
  @Override
  public Ready ready() {
    List<Record> durable = new ArrayList<>(heldBack); // before anything logged since
    heldBack.clear();
    while (!toStart.isEmpty()) {
      advance(parts.get(toStart.pollFirst()));
    }
    boolean more = sendPages();
    durable.addAll(records);
    records.clear();
    if (durable.isEmpty() && out.isEmpty()) {
      return Ready.EMPTY;
    }
    Ready r = new Ready(durable, out, more);
    out.clear();
    return r;
  }

  /** The role this node holds for {@code partition}, as far as it knows. */
  public Role role(int partition) {
    Part p = parts.get(partition);
    return p == null ? Role.ABSENT : p.role;
  }

  /** The epoch this node knows for {@code partition}, 0 if none. */
  public long epoch(int partition) {
    Part p = parts.get(partition);
    return p == null ? 0 : p.epoch;
  }

  /** The modulus this node numbers {@code partition} at, 0 if none. */
  public long modulus(int partition) {
    Part p = parts.get(partition);
    return p == null ? 0 : p.numbering.modulus();
  }

  /** How this node numbers {@code partition}, {@link Numbering#NONE} if not at all. */
  public Numbering numbering(int partition) {
    Part p = parts.get(partition);
    return p == null ? Numbering.NONE : p.numbering;
  }

  /** Whether {@code partition}, as this node numbers it, holds {@code key}. */
  public boolean owns(int partition, Bytes key) {
    Part p = parts.get(partition);
    return p != null && p.numbering.holds(p.id, key);
  }

  /** The partitions this node knows anything of (a copy, an epoch), ascending: for observers. */
  public List<Integer> partitions() {
    return List.copyOf(parts.keySet());
  }

  /** This node's copy of {@code partition} (visible or not), read-only: for observers. */
  public java.util.SortedMap<Bytes, Bytes> localData(int partition) {
    Part p = parts.get(partition);
    return p == null ? java.util.Collections.emptySortedMap()
        : java.util.Collections.unmodifiableSortedMap(p.data);
  }

  /**
   * The partitions this node is primary of, as far as it knows, ascending: for observers (a
   * driver's load view reports these).
   */
  public List<Integer> primaries() {
    List<Integer> ids = new ArrayList<>();
    for (Part p : parts.values()) {
      if (p.role == Role.PRIMARY) {
        ids.add(p.id);
      }
    }
    return ids;
  }

  /** The keys this node holds for {@code partition} (visible or not): for observers. */
  public int keys(int partition) {
    Part p = parts.get(partition);
    return p == null ? 0 : p.data.size();
  }

  /**
   * The median key of this node's copy of {@code partition} (visible or not): the key at index
   * {@code keys / 2} in unsigned byte order, where a cut leaves two halves of equal key counts
   * (the upper one a key more when the count is odd); empty when the copy holds no key. A pure
   * query for observers (a driver's load view reports it as a key range's split key). It walks
   * half the copy, so a driver asks it when a view is asked, not per request.
   */
  public Optional<Bytes> medianKey(int partition) {
    Part p = parts.get(partition);
    if (p == null || p.data.isEmpty()) {
      return Optional.empty();
    }
    int skip = p.data.size() / 2;
    for (Bytes key : p.data.keySet()) {
      if (skip-- == 0) {
        return Optional.of(key);
      }
    }
    throw new AssertionError("a map of " + p.data.size() + " keys ended before its middle");
  }

  /**
   * The name of the state this node's copy of {@code partition} is in ({@link Level}): the epoch
   * and the level it was last made under, both 0 when it has none. For tests and observers.
   */
  public StateName stateName(int partition) {
    Part p = parts.get(partition);
    return p == null ? new StateName(0, 0) : new StateName(p.stateEpoch, p.stateLevel);
  }

  /** A copy's state's name: the level it was last made under, at its epoch. */
  public record StateName(long epoch, long level) {}

  /** The last write this node's copy of {@code partition} holds, 0 if none: for observers. */
  public long seq(int partition) {
    Part p = parts.get(partition);
    return p == null ? 0 : p.seq;
  }

  /**
   * Where {@code partition} stands on this node, as far as it knows: a pure query of this
   * replica's state (no I/O, no clock; whether a primary serves is as of its last {@link #tick}),
   * for observers such as a driver's listing of its partitions. A partition it knows nothing of
   * is {@link Role#ABSENT} at epoch 0, numbered {@link Numbering#NONE}, with no primary.
   */
  public Status status(int partition) {
    Part p = parts.get(partition);
    if (p == null) {
      return new Status(partition, Role.ABSENT, 0, Numbering.NONE, -1, List.of(), List.of(), 0,
          false, false, new StateName(0, 0), 0, 0, 0, false, 0);
    }
    boolean primary = p.role == Role.PRIMARY;
    boolean serving = primary && p.levelled && !p.deposed && !p.mustLevel && p.drainUntil <= now;
    return new Status(p.id, p.role, p.epoch, p.numbering, p.primary, p.backups,
        primary ? List.copyOf(p.joining) : List.of(), p.level, p.levelled, serving,
        new StateName(p.stateEpoch, p.stateLevel), p.seq, p.data.size(), p.queue.size(),
        p.gathering != null, primary ? p.copies.size() : 0);
  }

  /** {@link #status} of every partition this node knows anything of, in partition order. */
  public List<Status> statuses() {
    List<Status> all = new ArrayList<>(parts.size());
    for (int p : parts.keySet()) {
      all.add(status(p));
    }
    return all;
  }

  /**
   * Where one partition stands on one node ({@link #status}).
   *
   * @param partition the partition
   * @param role what this node is for it, as far as it knows
   * @param epoch the epoch of the configuration it knows (0: none)
   * @param numbering which keys it holds ({@link Numbering#NONE}: not numbered)
   * @param primary the primary that configuration names (-1: none known)
   * @param backups the backups that configuration names, as far as this node knows (a backup
   *     that took its copy from its primary's snapshot knows only its primary: none)
   * @param joining primary: the backups it is still levelling (not yet holding every write it
   *     made visible), which no round waits for; empty on a backup
   * @param level the level of its epoch: a primary's in progress or done, the one a backup holds
   *     or is being brought to
   * @param levelled a backup holds its primary's level; a primary's backups all acknowledged it
   * @param serving a primary that takes requests now: levelled, not deposed, not levelling
   *     again after a restart, not draining for a change of primary
   * @param state the name of the state its copy is in (the level it was last made under)
   * @param seq the last write its copy holds, within that level
   * @param keys the keys its copy holds (visible or not)
   * @param queued requests waiting at the primary behind the round in progress
   * @param copyArriving a backup to which a whole copy's pages are arriving
   * @param copiesSending a primary's whole copies under way to its backups
   */
  public record Status(int partition, Role role, long epoch, Numbering numbering, int primary,
      List<Integer> backups, List<Integer> joining, long level, boolean levelled,
      boolean serving, StateName state, long seq, int keys, int queued, boolean copyArriving,
      int copiesSending) {

    public Status {
      java.util.Objects.requireNonNull(role, "role");
      java.util.Objects.requireNonNull(numbering, "numbering");
      java.util.Objects.requireNonNull(state, "state");
      backups = List.copyOf(backups);
      joining = List.copyOf(joining);
    }
  }

  /** The value this node holds for {@code key} (visible or not): for tests and observers. */
  public Optional<Bytes> localValue(int partition, Bytes key) {
    Part p = parts.get(partition);
    return p == null ? Optional.empty() : Optional.ofNullable(p.data.get(key));
  }

  /**
   * The page {@code scan} would get of what this node holds (visible or not), unconfirmed: for
   * tests and observers.
   */
  public Page localPage(Scan scan) {
    Part p = parts.get(scan.partition());
    return page(scan, p == null ? new TreeMap<>() : p.data);
  }

  /**
   * The page of {@code data} a scan gets: its keys in range, ascending, up to the scan's limit,
   * {@link #PAGE_ENTRIES} and {@link #PAGE_BYTES}, and whether any remain after the last.
   */
  static Page page(Scan scan, NavigableMap<Bytes, Bytes> data) {
    NavigableMap<Bytes, Bytes> range = scan.to() == null ? data.tailMap(scan.from(), true)
        : data.subMap(scan.from(), true, scan.to(), false);
    int most = Math.min(scan.limit(), PAGE_ENTRIES);
    TreeMap<Bytes, Bytes> entries = new TreeMap<>();
    long bytes = 0;
    for (Map.Entry<Bytes, Bytes> e : range.entrySet()) {
      long size = e.getKey().length() + e.getValue().length();
      if (entries.size() == most || !entries.isEmpty() && bytes + size > PAGE_BYTES) {
        return new Page(scan.id(), Outcome.OK, entries, true, null);
      }
      entries.put(e.getKey(), e.getValue());
      bytes += size;
    }
    return new Page(scan.id(), Outcome.OK, entries, false, null);
  }

  // ---- client requests, at the primary

  /** A request or scan is queued at its partition's primary, or refused. */
  private void admit(Pending d) {
    int partition = d.partition();
    Part p = parts.get(partition);
    if (p == null || p.role != Role.PRIMARY || p.deposed) {
      fail(d, "node " + self + " is not the primary of partition " + partition + (p == null ? ""
          : " (" + p.role + " at epoch " + p.epoch + (p.deposed ? ", deposed" : "") + ")"));
      return;
    }
    String misrouted = misrouted(p, d);
    if (misrouted != null) {
      fail(d, misrouted);
      return;
    }
    if (p.queue.size() >= QUEUE_LIMIT) {
      fail(d, "partition " + partition + " has " + QUEUE_LIMIT + " requests waiting on node "
          + self);
      return;
    }
    p.queue.add(d);
    toStart.add(p.id);
  }

  /**
   * Starts the next round if none is in progress and the partition is level: the queued requests,
   * in order, up to {@link #ROUND_LIMIT} and {@link #ROUND_BYTES}. Each write (a PUT, or a CAS
   * whose expectation holds of the state the round's earlier writes leave) is logged and
   * replicated under the next seq; a CAS that fails is decided now and answered in its turn.
   *
   * <p>The round's records are held back to the next Ready when it waits for backups: its
   * replication leaves without waiting for the primary's sync, which then overlaps the backups'.
   * Nothing that depends on them leaves earlier: the round's replies (and a snapshot holding its
   * writes) come after a backup's answer, so in that Ready or a later one, after the records. A
   * backup may so hold a write its primary lost in a crash: never acknowledged, and the restarted
   * primary levels its backups to its own log before it serves.
   */
  private void advance(Part p) {
    if (p.current != null || !p.levelled || p.deposed || p.queue.isEmpty()
        || p.drainUntil > now) {
      return;
    }
    Round round = new Round();
    Map<Bytes, Bytes> written = new HashMap<>(); // the round's writes so far, over p.data
    boolean reads = false;
    List<Record> log = required(p).isEmpty() ? records : heldBack;
    long seq = p.seq;
    long bytes = 0;
    while (!p.queue.isEmpty() && round.requests.size() < ROUND_LIMIT) {
      long size = p.queue.peek().size();
      if (!round.requests.isEmpty() && bytes + size > ROUND_BYTES) {
        break;
      }
      Pending next = p.queue.poll();
      String misrouted = misrouted(p, next);
      if (misrouted != null) {
        fail(next, misrouted); // queued before the split moved its keys
        continue;
      }
      bytes += size;
      round.requests.add(next);
      if (next.scan != null) {
        reads = true;
        continue;
      }
      Request r = next.request;
      Bytes found = written.containsKey(r.key()) ? written.get(r.key()) : p.data.get(r.key());
      if (r.kind() == Kind.GET) {
        reads = true;
      } else if (r.kind() == Kind.CAS && !java.util.Objects.equals(found, r.expected())) {
        next.failure = "expected " + brief(r.expected()) + ", found " + brief(found);
      } else {
        next.seq = ++seq;
        written.put(r.key(), r.value());
        log.add(new Written(p.id, p.epoch, p.level, seq, r.key(), r.value()));
        round.messages.add(new Replicate(p.id, p.epoch, p.level, seq, r.key(), r.value()));
      }
    }
    if (round.requests.isEmpty()) {
      return;
    }
    if (seq > p.seq) {
      round.lastSeq = seq;
    } else if (reads) {
      round.confirm = ++rounds;
      round.messages.add(new Confirm(p.id, p.epoch, p.level, round.confirm));
    }
    p.current = round;
    p.answered.clear();
    p.startedAt = now;
    p.sentAt = now;
    p.suspectedAt = NEVER;
    for (int b : p.backups) {
      sendRound(p, b);
    }
    completeIfHeld(p);
  }

  /**
   * Sends backup {@code b} the round in progress: its replication, and to a backup the round
   * waits for, its reads' confirmation (a joining backup holds no level to confirm yet).
   */
  private void sendRound(Part p, int b) {
    boolean joining = p.joining.contains(b);
    for (Message m : p.current.messages) {
      if (!(joining && m instanceof Confirm)) {
        send(b, m);
      }
    }
  }

  /** The backups a round (or the start of serving) waits for: all but the joining. */
  private static List<Integer> required(Part p) {
    if (p.joining.isEmpty()) {
      return p.backups;
    }
    return p.backups.stream().filter(b -> !p.joining.contains(b)).toList();
  }

  /**
   * Why the partition, as this node numbers it, does not take {@code d} (routed by a table older
   * or newer than this node's split); null: it does. A scan must name the partition's modulus.
   */
  private static String misrouted(Part p, Pending d) {
    if (d.scan != null) {
      return d.scan.modulus() == p.numbering.modulus()
          && d.scan.generation() == p.numbering.generation() ? null : "partition " + p.id
          + " is numbered at modulus " + p.numbering.modulus() + " generation "
          + p.numbering.generation() + ", the scan at " + d.scan.modulus() + " generation "
          + d.scan.generation() + " (split or merged)";
    }
    return p.numbering.holds(p.id, d.request.key()) ? null : "partition " + p.id
        + " no longer holds key " + d.request.key() + " (split: it holds "
        + p.numbering.describe(p.id) + ")";
  }

  /**
   * {@code b} in hex for a message, its first {@link #BRIEF_BYTES} only when longer: a reply
   * that spelled out two large values whole would be four times their size, past what a
   * driver's frame holds.
   */
  static String brief(Bytes b) {
    if (b == null || b.length() <= BRIEF_BYTES) {
      return String.valueOf(b);
    }
    byte[] head = java.util.Arrays.copyOf(b.toArray(), BRIEF_BYTES);
    return java.util.HexFormat.of().formatHex(head) + "... (" + b.length() + " bytes)";
  }

  /** A reply to {@code d} that it failed ({@link Outcome#FAIL}) or may have taken effect. */
  private void fail(Pending d, Outcome outcome, String why) {
    send(d.client, d.scan != null ? new Page(d.scan.id(), outcome, new TreeMap<>(), false, why)
        : new Reply(d.request.id(), outcome, null, why));
  }

  private void fail(Pending d, String why) {
    fail(d, Outcome.FAIL, why);
  }

  /**
   * Completes the round in progress once every backup holds its last write (or, a round that
   * writes nothing, confirmed its reads): its writes become visible and its requests are
   * answered, in request order, each read with the value the round's earlier writes leave.
   */
  private void completeIfHeld(Part p) {
    Round c = p.current;
    if (c == null || c.waits() && !p.answered.containsAll(required(p))) {
      return;
    }
    p.current = null;
    for (Pending d : c.requests) {
      Request r = d.request;
      if (d.failure != null) { // a CAS that found another value (a scan never fails here)
        fail(d, d.failure);
        continue;
      }
      if (d.scan != null) {
        send(d.client, page(d.scan, p.data));
      } else if (r.kind() == Kind.GET) {
        send(d.client, new Reply(r.id(), Outcome.OK, p.data.get(r.key()), null));
      } else {
        apply(p, d.seq, r.key(), r.value());
        send(d.client, new Reply(r.id(), Outcome.OK, null, null));
      }
      served.merge(p.id, 1L, Long::sum);
    }
    if (p.drainUntil > now) {
      send(Control.ID, new Drained(p.id, p.epoch));
    }
    toStart.add(p.id);
  }

  /** Makes the round's writes hold in this node's state: their records are in its log. */
  private static void hold(Part p, Round round) {
    for (Pending d : round.requests) {
      if (d.writes()) {
        apply(p, d.seq, d.request.key(), d.request.value());
      }
    }
  }

  /**
   * Write {@code seq} takes effect in the copy, and joins its last writes with the value it
   * replaced ({@link #TAIL_WRITES}); a write that does not follow the last leaves none before it.
   */
  private static void apply(Part p, long seq, Bytes key, Bytes value) {
    if (seq != p.seq + 1) {
      forgetTail(p);
    }
    for (Copy copy : p.copies) {
      copy.writing(key, p.data.get(key));
    }
    Change c = new Change(seq, key, value, p.data.put(key, value));
    p.seq = seq;
    p.tail.addLast(c);
    p.tailBytes += c.size();
    while (p.tail.size() > TAIL_WRITES || p.tailBytes > TAIL_BYTES) {
      p.tailBytes -= p.tail.pollFirst().size();
    }
  }

  /** The copy's data changed other than by a write: its last writes say nothing of it now. */
  private static void forgetTail(Part p) {
    p.tail.clear();
    p.tailBytes = 0;
  }

  private void suspectSilent(Part p) {
    long since = p.current != null ? p.startedAt : p.levelStartedAt;
    if (now - since < timing.suspectMillis()
        || now - p.suspectedAt < timing.resendMillis()) {
      return;
    }
    TreeSet<Integer> silent = new TreeSet<>();
    for (int b : p.backups) {
      // a joining backup may take long to copy; the control hears whether it is up
      if (!p.answered.contains(b) && !p.joining.contains(b) && !copyProgressing(p, b)) {
        silent.add(b);
      }
    }
    if (!silent.isEmpty()) {
      send(Control.ID, new Suspect(p.id, p.epoch, silent));
      p.suspectedAt = now;
    }
  }

  // ---- replica traffic, at the backup

  private void onReplicate(int from, Replicate r) {
    Part p = parts.get(r.partition());
    if (p != null && gathers(p, from, r)) {
      return;
    }
    if (refused(from, p, r.partition(), r.epoch(), r.level())) {
      return;
    }
    if (r.seq() > p.seq + 1) {
      send(from, new Refuse(p.id, p.epoch, false));
      return;
    }
    if (r.seq() == p.seq + 1) {
      apply(p, r.seq(), r.key(), r.value());
      records.add(new Written(p.id, p.epoch, p.level, r.seq(), r.key(), r.value()));
    }
    // at or below its seq under the same level: a resend of what it holds
    acknowledge(from, p);
  }

  /**
   * Whether {@code r} is a write of the level whose copy's pages are arriving, which this backup
   * does not hold yet: kept, in seq order from the copy's, and taken once the copy is whole (the
   * writes a copy of a large partition takes to arrive outnumber its primary's last writes).
   */
  private static boolean gathers(Part p, int from, Replicate r) {
    Gathering g = p.gathering;
    if (g == null || g.epoch < p.epoch || g.primary != from || g.epoch != r.epoch()
        || g.level != r.level()
        || p.levelled && p.epoch == r.epoch() && p.level == r.level()) {
      return false;
    }
    if (r.seq() == g.seq + 1 + g.writes.size() && g.writes.size() < GATHERED_WRITES) {
      g.writes.add(r);
    }
    return true;
  }

  /**
   * Acknowledges every write this backup holds under its level. One acknowledgement covers every
   * seq below it, so one of the same level still waiting in this Ready is raised in place rather
   * than joined by another: a round's writes, arriving together, cost their primary one message.
   */
  private void acknowledge(int primary, Part p) {
    Ack ack = new Ack(p.id, p.epoch, p.level, p.seq);
    for (int i = out.size() - 1; i >= 0; i--) {
      Envelope e = out.get(i);
      if (e.to() == primary && e.message() instanceof Ack a && a.partition() == p.id
          && a.epoch() == p.epoch && a.level() == p.level) {
        out.set(i, new Envelope(self, primary, ack));
        return;
      }
    }
    send(primary, ack);
  }

  private void onConfirm(int from, Confirm c) {
    Part p = parts.get(c.partition());
    if (refused(from, p, c.partition(), c.epoch(), c.level())) {
      return;
    }
    send(from, new Confirmed(p.id, p.epoch, p.level, c.round()));
  }

  /**
   * Refuses replica traffic that is not for this backup's epoch and level, telling the sender
   * whether it is deposed (this node is at a newer epoch) or must level it first. A node the
   * newer epoch took out of a partition that the sender still leads says nothing: the sender is
   * not deposed, only told late, and its round in flight carries over into the new epoch once
   * its own configuration arrives, where a refusal would fail it.
   */
  private boolean refused(int from, Part p, int partition, long epoch, long level) {
    if (p != null && epoch < p.epoch) {
      if (!(p.role == Role.ABSENT && p.configured && p.primary == from)) {
        send(from, new Refuse(partition, p.epoch, true));
      }
      return true;
    }
    if (p == null || epoch > p.epoch || p.role != Role.BACKUP || p.primary != from
        || !p.levelled || level != p.level) {
      send(from, new Refuse(partition, p == null ? 0 : p.epoch, false));
      return true;
    }
    return false;
  }

  private void onSnapshot(int from, Snapshot s) {
    cover(s.partition(), s.numbering());
    Part p = part(s.partition());
    // a snapshot of the level it holds, further on, catches a joining backup up
    Offer offer = judge(from, p, s.epoch(), s.level(), s.numbering(), s.seq());
    if (offer == Offer.DROPPED) {
      return;
    }
    if (offer == Offer.NEW) {
      Gathering g = p.gathering;
      if (g != null && g.took(s.epoch(), from, s.level(), s.seq(), s.page())) {
        // a page it took already (sent again, or duplicated): its primary may have missed that
        send(from, new Taken(p.id, s.epoch(), s.level(), s.seq(), g.next - 1));
        return;
      }
      if (s.page() > 0 && (g == null || !g.continuedBy(s.epoch(), from, s.level(), s.seq(),
          s.page()))) {
        return; // a page after one lost, or of a copy begun again: the copy comes again whole
      }
      List<Replicate> gathered = g != null && s.page() > 0 ? g.writes : List.of();
      SnapshotPage rec = new SnapshotPage(p.id, s.epoch(), from, s.level(), s.seq(), s.page(),
          s.last(), s.data(), s.numbering());
      records.add(rec);
      replay(rec);
      if (!s.last()) {
        send(from, new Taken(p.id, s.epoch(), s.level(), s.seq(), s.page()));
        return;
      }
      // the level's writes that arrived with the pages follow the copy
      for (Replicate r : gathered) {
        if (p.levelled && r.level() == p.level && r.seq() == p.seq + 1) {
          apply(p, r.seq(), r.key(), r.value());
          records.add(new Written(p.id, p.epoch, p.level, r.seq(), r.key(), r.value()));
        }
      }
    }
    send(from, new Ack(p.id, p.epoch, p.level, p.seq));
  }

  /**
   * A level offered by name: taken when this copy's state is of the level the primary's is and
   * within reach of its seq (forward by the offer's last writes, back by undoing its own), else
   * refused, and the primary sends the whole snapshot.
   */
  private void onLevel(int from, Level l) {
    cover(l.partition(), l.numbering());
    Part p = part(l.partition());
    Offer offer = judge(from, p, l.epoch(), l.level(), l.numbering(), 0);
    if (offer == Offer.DROPPED) {
      return;
    }
    if (offer == Offer.NEW) {
      if (!reaches(p, l)) {
        send(from, new Refuse(p.id, p.epoch, false));
        return;
      }
      records.add(rebase(p, from, l));
    }
    send(from, new Ack(p.id, p.epoch, p.level, p.seq));
  }

  /** What a level's offer (a snapshot or a {@link Level}) from {@code from} is to this node. */
  private enum Offer {
    /** Stale, refused, or not this node's primary's: answered as needed, nothing more to do. */
    DROPPED,
    /** The level it holds already: acknowledge again. */
    HELD,
    /** A level to take. */
    NEW
  }

  /** {@code seq}: a snapshot of the level this copy holds past it replaces the copy. */
  private Offer judge(int from, Part p, long epoch, long level, Numbering numbering, long seq) {
    if (epoch < p.epoch || p.numbering.newerThan(numbering)) {
      // an older epoch, or a primary that has not split or merged what this node has: stale
      send(from, new Refuse(p.id, p.epoch, true));
      return Offer.DROPPED;
    }
    boolean sameEpoch = epoch == p.epoch;
    if (sameEpoch && p.configured && (p.role != Role.BACKUP || p.primary != from)) {
      return Offer.DROPPED; // one configuration per epoch: this sender is not its primary here
    }
    if (sameEpoch && p.levelled && level < p.level) {
      return Offer.DROPPED; // an older level of the same primary, delivered late
    }
    if (sameEpoch && p.levelled && level == p.level) {
      return seq > p.seq ? Offer.NEW : Offer.HELD;
    }
    if (p.role == Role.PRIMARY && !p.deposed) {
      // a newer epoch's primary levels it before the control's word arrived: it serves no more
      abandon(p, "node " + self + " is a backup of node " + from + " at epoch " + epoch);
      p.deposed = true; // until the new level (or a configuration) says what it is
    }
    return Offer.NEW;
  }

  /** Whether this copy can reach the state {@code l} begins from without a whole snapshot. */
  private static boolean reaches(Part p, Level l) {
    if (p.stateEpoch == 0 || p.stateEpoch != l.fromEpoch() || p.stateLevel != l.fromLevel()
        || !p.numbering.equals(l.numbering())) {
      return false;
    }
    if (p.seq > l.seq()) {
      return !p.tail.isEmpty() && p.tail.peekFirst().seq() <= l.seq() + 1;
    }
    return p.seq == l.seq() || !l.tail().isEmpty() && l.tail().get(0).seq() <= p.seq + 1;
  }

  /**
   * Brings this copy to the state {@code l} begins from (undoing its own last writes past the
   * offer's seq, or taking the offer's writes past its own) and takes the level: the record says
   * what changed, so a restart replays the same.
   */
  private Rebased rebase(Part p, int from, Level l) {
    TreeSet<Bytes> touched = new TreeSet<>();
    while (p.seq > l.seq()) {
      Change c = p.tail.pollLast();
      p.tailBytes -= c.size();
      if (c.previous() == null) {
        p.data.remove(c.key());
      } else {
        p.data.put(c.key(), c.previous());
      }
      p.seq = c.seq() - 1;
      touched.add(c.key());
    }
    for (Write w : l.tail()) {
      if (w.seq() == p.seq + 1) {
        apply(p, w.seq(), w.key(), w.value());
        touched.add(w.key());
      }
    }
    TreeMap<Bytes, Bytes> put = new TreeMap<>();
    TreeSet<Bytes> removed = new TreeSet<>();
    for (Bytes key : touched) {
      Bytes value = p.data.get(key);
      if (value == null) {
        removed.add(key);
      } else {
        put.put(key, value);
      }
    }
    Rebased rec = new Rebased(p.id, l.epoch(), from, l.level(), p.seq, put, removed);
    adopt(p, rec.epoch(), rec.primary(), rec.level());
    return rec;
  }

  /** This copy holds level {@code level} of {@code primary} at {@code epoch}, as its backup. */
  private static void adopt(Part p, long epoch, int primary, long level) {
    p.epoch = epoch;
    p.configured = true;
    p.role = Role.BACKUP;
    p.primary = primary;
    p.backups = List.of();
    p.deposed = false;
    p.level = level;
    p.levelled = true;
    p.inherited = false;
    p.stateEpoch = epoch;
    p.stateLevel = level;
    p.gathering = null;
  }

  // ---- answers, at the primary

  private void onAck(int from, Ack a) {
    Part p = parts.get(a.partition());
    if (p == null || p.role != Role.PRIMARY || p.deposed || a.epoch() != p.epoch
        || a.level() != p.level || !p.backups.contains(from)) {
      return;
    }
    if (p.joining.contains(from)) {
      joined(p, from, a.seq());
    }
    if (!p.levelled) {
      p.answered.add(from);
      if (p.answered.containsAll(required(p))) {
        levelled(p);
      }
      return;
    }
    if (p.current != null && p.current.lastSeq > 0 && a.seq() >= p.current.lastSeq) {
      p.answered.add(from);
      completeIfHeld(p);
    }
  }

  /**
   * A joining backup acknowledged {@code seq}: once that is every write this primary made
   * visible, it holds every write acknowledged so far, and every round from then on waits for it
   * too, the round in progress as well (it is sent it again; a joining backup that must also
   * hold the round in progress to count would chase rounds for ever under steady load). Once no
   * backup is joining, the control hears that every member is level.
   */
  private void joined(Part p, int b, long seq) {
    if (seq > p.joinAcked.getOrDefault(b, -1L)) {
      p.joinAcked.put(b, seq);
      p.joinHeardAt.put(b, now);
    }
    if (seq < p.seq) {
      return; // the round in progress, if any, waits for it from now on: it is sent it again
    }
    p.joining.remove(b);
    p.joinAcked.remove(b);
    p.joinHeardAt.remove(b);
    if (p.levelled && p.current != null) {
      sendRound(p, b);
    }
    if (p.levelled && p.joining.isEmpty()) {
      send(Control.ID, new Levelled(p.id, p.epoch));
    }
  }

  private void onConfirmed(int from, Confirmed c) {
    Part p = parts.get(c.partition());
    if (p == null || p.role != Role.PRIMARY || p.deposed || c.epoch() != p.epoch
        || c.level() != p.level || !p.backups.contains(from) || p.current == null
        || p.current.confirm == 0 || p.current.confirm != c.round()) {
      return;
    }
    p.answered.add(from);
    completeIfHeld(p);
  }

  private void onRefuse(int from, Refuse r) {
    Part p = parts.get(r.partition());
    if (p == null || p.role != Role.PRIMARY || p.deposed || !p.backups.contains(from)) {
      return;
    }
    if (r.stale()) {
      if (r.epoch() > p.epoch) {
        // A member is at a newer epoch: the control replaced this configuration. Serve nothing
        // more until it says what this node is now.
        p.deposed = true;
        abandon(p, "deposed: node " + from + " is at epoch " + r.epoch());
      }
      return;
    }
    if (!p.levelled || p.joining.contains(from)) {
      // it cannot take the level by name: the whole snapshot, once (resends follow the clock)
      if (p.wholeSent.add(from)) {
        copyTo(p, List.of(from));
      }
      return;
    }
    // it lost its copy or missed the level: level it again
    copyTo(p, List.of(from));
    if (p.current != null) {
      sendRound(p, from);
    }
  }

  // ---- configuration, from the control

  /**
   * A planned change of primary follows: the round in progress completes, no other starts (for
   * the suspicion time at most), and the control hears once none is in progress. Only a serving
   * primary of that epoch drains; any other ignores it, and the control, hearing nothing, changes
   * the primary anyway.
   */
  private void onDrain(Drain d) {
    Part p = parts.get(d.partition());
    if (p == null || p.role != Role.PRIMARY || p.deposed || p.epoch != d.epoch()
        || !p.levelled) {
      return;
    }
    p.drainUntil = now + timing.suspectMillis();
    if (p.current == null) {
      send(Control.ID, new Drained(p.id, p.epoch));
    }
  }

  /** The planned change is off: a primary draining at that epoch serves again. */
  private void onResume(Resume r) {
    Part p = parts.get(r.partition());
    if (p == null || p.role != Role.PRIMARY || p.deposed || p.epoch != r.epoch()
        || p.drainUntil == NEVER) {
      return;
    }
    p.drainUntil = NEVER;
    toStart.add(p.id);
  }

  private void onConfigure(Configure c) {
    if (incarnation != 0 && !acknowledged) {
      return; // the control may not know this incarnation yet; it configures it again later
    }
    cover(c.partition(), c.numbering());
    Part p = part(c.partition());
    if (c.epoch() < p.epoch || c.epoch() == p.epoch && p.configured) {
      return;
    }
    Configured rec = new Configured(p.id, c.epoch(), c.primary(), c.backups(), c.numbering());
    records.add(rec);
    p.drainUntil = NEVER;
    boolean wasPrimary = p.role == Role.PRIMARY && !p.deposed;
    Round carried = wasPrimary && c.primary() == self ? p.current : null;
    if (carried != null) {
      // Its writes' records are in this node's log and will be in the level's snapshot: they
      // hold from now.
      hold(p, carried);
    }
    if (p.role == Role.PRIMARY && c.primary() != self) {
      abandon(p, "node " + self + " is no longer the primary (epoch " + c.epoch() + ")");
    }
    p.current = null;
    replay(rec);
    if (p.role == Role.PRIMARY) {
      p.joining.addAll(c.joining());
      if (carried != null) {
        requeue(p, carried);
      }
      beginLevel(p);
    }
  }

  /**
   * Puts a round carried into a new epoch back at the head of the queue: its writes first, done
   * (answered once the new level holds), then its reads and failed CASes, asked again in the new
   * epoch. None of them was answered, so all were concurrent: any order among them is one the
   * history can explain.
   */
  private static void requeue(Part p, Round carried) {
    List<Pending> again = new ArrayList<>();
    for (Pending d : carried.requests) {
      if (d.writes()) {
        d.done = true;
        again.add(d);
      }
    }
    for (Pending d : carried.requests) {
      if (!d.writes()) {
        d.failure = null;
        again.add(d);
      }
    }
    for (int i = again.size() - 1; i >= 0; i--) {
      p.queue.addFirst(again.get(i));
    }
  }

  /**
   * Fails what this deposed or demoted primary was doing and holds. The round in progress's
   * writes stay in the copy: their records are in its log, and its state must be what its log
   * says, the state its name ({@link Level}) stands for.
   */
  private void abandon(Part p, String why) {
    if (p.current != null) {
      hold(p, p.current);
      for (Pending d : p.current.requests) {
        fail(d, d.writes() ? Outcome.UNKNOWN : Outcome.FAIL, why);
      }
      p.current = null;
    }
    for (Pending q : p.queue) {
      fail(q, q.done ? Outcome.UNKNOWN : Outcome.FAIL, why);
    }
    p.queue.clear();
  }

  private void beginLevel(Part p) {
    p.mustLevel = false;
    long fromEpoch = p.stateEpoch;
    long fromLevel = p.stateLevel;
    LevelBegun begun = new LevelBegun(p.id, p.epoch, p.nextLevel);
    records.add(begun);
    replay(begun);
    p.levelled = false;
    p.wholeSent.clear();
    p.pageTakenAt.clear();
    p.offer = fromEpoch == 0 ? null : new Level(p.id, p.epoch, p.level, fromEpoch, fromLevel,
        p.seq, p.tail.stream().map(c -> new Write(c.seq(), c.key(), c.value())).toList(),
        p.numbering);
    p.answered.clear();
    p.levelStartedAt = now;
    p.sentAt = now;
    p.levelResends = 0;
    p.joinResends = 0;
    p.joinAcked.clear();
    p.joinHeardAt.clear();
    p.suspectedAt = NEVER;
    p.current = null;
    sendLevel(p, p.backups);
    if (required(p).isEmpty()) {
      levelled(p);
    }
  }

  /**
   * Sends the level in progress to {@code backups}: its offer by name, or the whole snapshot to
   * those that refused the offer (or all, when this copy's state has no name), taken once.
   */
  private void sendLevel(Part p, Collection<Integer> backups) {
    List<Integer> whole = new ArrayList<>();
    for (int b : backups) {
      if (p.offer != null && !p.wholeSent.contains(b)) {
        send(b, p.offer);
        continue;
      }
      p.wholeSent.add(b);
      whole.add(b);
    }
    copyTo(p, whole);
  }

  /** Every backup but the joining holds the level: the partition serves. */
  private void levelled(Part p) {
    p.levelled = true;
    p.answered.clear();
    if (p.joining.isEmpty()) {
      send(Control.ID, new Levelled(p.id, p.epoch));
    }
    // writes carried over from the previous epoch hold now: answer them
    while (!p.queue.isEmpty() && p.queue.peek().done) {
      Pending d = p.queue.poll();
      send(d.client, new Reply(d.request.id(), Outcome.OK, null, null));
      served.merge(p.id, 1L, Long::sum);
    }
    toStart.add(p.id);
  }

  /**
   * Starts sending {@code to} the whole partition as it is now (a {@link Snapshot} as of this
   * copy's seq), in pages of at most {@link #pageEntries} entries and about {@link
   * #SNAPSHOT_PAGE_BYTES} (a page's first entry whatever its size), in key order: the first page
   * at once, then at most one a {@link #ready} while fewer than {@link #COPY_WINDOW} are in
   * flight, so that a large partition's copy goes at its backup's pace and never holds up either
   * node's other work for longer than a page takes. Replaces a copy under way to any of them.
   */
  private void copyTo(Part p, Collection<Integer> to) {
    if (to.isEmpty()) {
      return;
    }
    for (Copy c : p.copies) {
      c.to.removeAll(to);
    }
    p.copies.removeIf(c -> c.to.isEmpty());
    Copy c = new Copy(p.epoch, p.level, p.seq, p.numbering, to);
    p.copies.add(c);
    copying.add(p.id);
    sendPage(p, c);
  }

  /**
   * Sends each copy under way whose window has room its next page, dropping the copies sent
   * whole and those of a level or numbering this primary no longer serves (their pages would be
   * refused). Whether a copy has room for another page now.
   */
  private boolean sendPages() {
    boolean more = false;
    for (java.util.Iterator<Integer> it = copying.iterator(); it.hasNext(); ) {
      Part p = parts.get(it.next());
      for (Copy c : p.copies) {
        c.to.retainAll(p.backups);
      }
      p.copies.removeIf(c -> c.sentWhole() || c.to.isEmpty() || p.role != Role.PRIMARY
          || p.deposed || c.epoch != p.epoch || c.level != p.level
          || !c.numbering.equals(p.numbering));
      for (Copy c : p.copies) {
        if (c.roomy()) {
          sendPage(p, c);
        }
        more |= !c.sentWhole() && c.roomy();
      }
      p.copies.removeIf(Copy::sentWhole);
      if (p.copies.isEmpty()) {
        it.remove();
      }
    }
    return more;
  }

  /**
   * A backup took a page of a copy under way: the copy may send more, and the backup is not
   * silent (a large copy outlasts the resend and suspicion times).
   */
  private void onTaken(int from, Taken t) {
    Part p = parts.get(t.partition());
    if (p == null || p.role != Role.PRIMARY || p.deposed || t.epoch() != p.epoch
        || t.level() != p.level) {
      return;
    }
    for (Copy c : p.copies) {
      if (c.seq == t.seq() && c.to.contains(from) && t.page() < c.page) {
        c.taken.merge(from, t.page(), Math::max);
      }
    }
    p.pageTakenAt.put(from, now);
    if (p.joining.contains(from)) {
      p.joinHeardAt.put(from, now);
    }
  }

  /**
   * Whether backup {@code b} took a page of this level's copy within the resend interval (the
   * copy's last pages may still be on their way after it was sent whole).
   */
  private boolean copyProgressing(Part p, int b) {
    return now - p.pageTakenAt.getOrDefault(b, NEVER) < timing.resendMillis();
  }

  /**
   * Sends copy {@code c}'s next page: the entries from where the last page ended, each with the
   * value it had as of the copy's seq ({@link Copy#before} for the keys written since).
   */
  private void sendPage(Part p, Copy c) {
    TreeMap<Bytes, Bytes> page = new TreeMap<>();
    long bytes = 0;
    Bytes next = null;
    for (Map.Entry<Bytes, Bytes> e : (c.next == null ? p.data : p.data.tailMap(c.next, true))
        .entrySet()) {
      Optional<Bytes> then = c.before.get(e.getKey());
      Bytes value = then == null ? e.getValue() : then.orElse(null);
      if (value == null) {
        continue; // written since the copy began: absent as of its seq
      }
      long size = e.getKey().length() + value.length();
      if (!page.isEmpty()
          && (page.size() == pageEntries || bytes + size > SNAPSHOT_PAGE_BYTES)) {
        next = e.getKey();
        break;
      }
      page.put(e.getKey(), value);
      bytes += size;
    }
    Snapshot s = new Snapshot(p.id, c.epoch, c.level, c.seq, page, c.numbering, c.page,
        next == null);
    for (int b : c.to) {
      send(b, s);
    }
    c.page++;
    c.next = next;
    if (next != null) {
      c.before.headMap(next).clear(); // sent: what they were no longer matters
    }
  }

  // ---- splits

  /** The newer of two numberings of a partition ({@link Numbering#newerThan}). */
  private static Numbering newer(Numbering held, Numbering given) {
    return given.newerThan(held) ? given : held;
  }

  /**
   * Carries out the merge {@code target} says was made of partition {@code id}: when this node
   * holds {@code id} at twice {@code target}'s modulus, in an older generation, the control has
   * merged it with its sibling since, and the two copies are combined. A copy this node holds of
   * {@code id}'s line in any other shape is left as it is: a generation counts the merges on one
   * partition's line only, so an ancestor's copy of an older generation says nothing of a merge
   * at its own level (its sibling's children may have merged), and a copy that missed a merge and
   * the splits after it is not level: its configuration or snapshot replaces it.
   */
  private void absorb(int id, Numbering target) {
    Part own = parts.get(id);
    if (own == null || target.generation() <= own.numbering.generation()
        || own.numbering.modulus() != 2 * target.modulus()) {
      return;
    }
    merge(new Merge(id, (int) (id + target.modulus()), target));
  }

  /**
   * Carries out one merge. A serving primary of either half stops serving it until the control
   * configures the merged partition: what it was doing is indefinite or failed.
   */
  private void merge(Merge rec) {
    for (int id : List.of(rec.partition(), rec.sibling())) {
      Part p = parts.get(id);
      if (p != null && p.role == Role.PRIMARY && !p.deposed) {
        if (p.current != null) {
          hold(p, p.current); // its writes' records are in the log before the merge's
        }
        abandon(p, "partition " + id + " merged (into " + rec.partition() + " at modulus "
            + rec.numbering().modulus() + ")");
        p.current = null;
      }
    }
    records.add(rec);
    replay(rec);
  }

  /**
   * Makes this node's partitions number {@code id} as {@code target} does: when it holds {@code
   * id} at a smaller modulus, or only an ancestor of it (a partition {@code id} was split off
   * from), it carries out the splits it missed, one record each with the cut {@code target}
   * names, along the way from that partition to {@code id}. A node holding nothing of {@code
   * id}'s keys has nothing to divide.
   */
  private void cover(int id, Numbering target) {
    long modulus = target.modulus();
    if (modulus <= 0) {
      return;
    }
    absorb(id, target);
    Part own = parts.get(id);
    if (own != null && (own.numbering.modulus() >= modulus
        || own.numbering.generation() > target.generation())) {
      return;
    }
    int from = -1;
    long at = 0;
    if (own != null && own.numbering.modulus() > 0) {
      from = id;
      at = own.numbering.modulus();
    } else {
      for (long m = modulus / 2; m >= 1 && modulus % (2 * m) == 0; m /= 2) {
        Part ancestor = parts.get((int) (id % m));
        if (ancestor != null && ancestor.numbering.modulus() == m) {
          if (ancestor.numbering.generation() > target.generation()) {
            return; // a numbering from before a merge of the ancestor: stale
          }
          from = (int) (id % m);
          at = m;
          break;
        }
      }
    }
    if (from < 0 || modulus % at != 0 || Long.bitCount(modulus / at) != 1
        || at < target.base()) {
      return;
    }
    while (at < modulus) {
      split(new Split(from, 2 * at, target.cut(at)));
      at *= 2;
      from = (int) (id % at);
    }
  }

  /**
   * Carries out one split. A serving primary stops serving the partition until the control
   * configures it in the new numbering (a configuration of the partition itself follows at once
   * when that is how the split arrived): what it was doing is indefinite or failed.
   */
  private void split(Split rec) {
    Part p = part(rec.partition());
    if (p.role == Role.PRIMARY && !p.deposed) {
      if (p.current != null) {
        // its writes' records are in the log before the split's, so a restart holds them too
        hold(p, p.current);
      }
      abandon(p, "partition " + p.id + " split (modulus " + rec.modulus() + ")");
    }
    records.add(rec);
    replay(rec);
  }

  // ---- state

  private void replay(Record rec) {
    if (rec instanceof Born b) {
      incarnation = b.incarnation();
      return;
    }
    Part p = part(rec.partition());
    if (rec instanceof CheckpointPage page) {
      p.checkpointPages = CheckpointPages.Gathered.take(p.checkpointPages, page);
      return;
    }
    CheckpointPages.Gathered checkpointPages = p.checkpointPages;
    // a checkpoint's pages come right before its last record: anything else ends them
    p.checkpointPages = null;
    if (rec instanceof Configured c) {
      p.epoch = c.epoch();
      p.configured = true;
      p.primary = c.primary();
      p.backups = List.copyOf(c.backups());
      p.deposed = false;
      p.levelled = false;
      p.joining.clear();
      p.role = c.primary() == self ? Role.PRIMARY
          : c.backups().contains(self) ? Role.BACKUP : Role.ABSENT;
      p.numbering = newer(p.numbering, c.numbering());
      p.inherited = false;
      if (p.gathering != null && p.gathering.epoch < c.epoch()) {
        p.gathering = null; // a copy of an epoch this configuration replaced
      }
      if (p.role == Role.ABSENT) {
        p.data.clear();
        p.seq = 0;
        forgetState(p);
        p.gathering = null;
      }
    } else if (rec instanceof LevelBegun l) {
      p.level = l.level();
      p.nextLevel = Math.max(p.nextLevel, l.level() + 1);
      p.stateEpoch = l.epoch();
      p.stateLevel = l.level();
    } else if (rec instanceof Written w) {
      apply(p, w.seq(), w.key(), w.value());
    } else if (rec instanceof Rebased r) {
      r.removed().forEach(p.data::remove);
      p.data.putAll(r.put());
      p.seq = r.seq();
      forgetTail(p); // only replayed at a restart, which keeps none
      adopt(p, r.epoch(), r.primary(), r.level());
    } else if (rec instanceof SnapshotPage s) {
      gather(p, s);
    } else if (rec instanceof Snapshotted s) {
      takeCopy(p, s.epoch(), s.primary(), s.level(), s.seq(), new TreeMap<>(s.data()),
          s.numbering());
    } else if (rec instanceof Checkpoint c) {
      p.epoch = c.epoch();
      p.configured = c.configured();
      p.role = c.role();
      p.primary = c.primary();
      p.backups = c.backups();
      p.deposed = c.deposed();
      p.level = c.level();
      p.nextLevel = c.nextLevel();
      p.levelled = c.levelled();
      p.seq = c.seq();
      p.numbering = c.numbering();
      p.inherited = c.inherited();
      p.stateEpoch = c.stateEpoch();
      p.stateLevel = c.stateLevel();
      forgetTail(p);
      p.gathering = null;
      p.data = CheckpointPages.Gathered.complete(checkpointPages, c);
    } else if (rec instanceof Merge m) {
      replayMerge(p, m);
    } else if (rec instanceof Split s) {
      Part child = part(s.child());
      if (p.numbering.modulus() * 2 != s.modulus()) {
        throw new IllegalStateException("partition " + p.id + " at modulus "
            + p.numbering.modulus() + " cannot split to modulus " + s.modulus());
      }
      Numbering numbering = p.numbering.split(p.id, s.cut());
      var it = p.data.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<Bytes, Bytes> kv = it.next();
        if (!numbering.holds(p.id, kv.getKey())) {
          child.data.put(kv.getKey(), kv.getValue());
          it.remove();
        }
      }
      p.numbering = numbering;
      child.numbering = newer(child.numbering, numbering);
      // both copies' data changed other than by a write: their states have no name any more
      forgetState(p);
      forgetState(child);
      p.gathering = null; // a copy of the old numbering
      if (!child.configured) {
        // the keys wait here, under no configuration, until the control configures the child
        child.inherited = p.role != Role.ABSENT || p.inherited;
      }
      if (p.role == Role.BACKUP) {
        // The level and epoch were of the old numbering. The split's epoch is newer than any of
        // the old numbering's, so the next one is a fence that never overtakes the control:
        // the old primary's replication and reads are refused as stale from now on, and the
        // partition waits, unconfigured, for the new numbering's configuration or snapshot.
        p.levelled = false;
        p.epoch++;
        p.configured = false;
      } else if (p.role == Role.PRIMARY) {
        p.deposed = true; // serves nothing until configured in the new numbering
      }
    }
  }

  /** Replays a {@link Merge}: see {@link #absorb}. */
  private void replayMerge(Part p, Merge m) {
    Part q = part(m.sibling());
    if (q.numbering.modulus() == p.numbering.modulus()) {
      p.data.putAll(q.data); // the halves hold disjoint keys
    }
    q.data = new TreeMap<>();
    q.seq = 0;
    forgetState(q);
    q.gathering = null;
    q.copies.clear();
    q.joining.clear();
    if (q.role != Role.ABSENT || q.configured) {
      // refuses the old numbering's traffic as stale; the control gives the number out again
      // only at an epoch past the merged partition's, which is past this one
      q.epoch++;
    }
    q.role = Role.ABSENT;
    q.configured = false;
    q.deposed = false;
    q.levelled = false;
    q.inherited = false;
    q.numbering = Numbering.NONE;
    p.numbering = m.numbering();
    forgetState(p); // its data changed other than by a write: its state has no name any more
    p.gathering = null;
    if (p.role == Role.BACKUP) {
      // as at a split: the old numbering's replication and reads are refused as stale from now
      p.levelled = false;
      p.epoch++;
      p.configured = false;
    } else if (p.role == Role.PRIMARY) {
      p.deposed = true; // serves nothing until configured in the merged numbering
    }
  }

  /**
   * A page of a copy: the first begins gathering (dropping a copy that did not complete), the next
   * ones in order join it, and the last replaces the partition's data with them, taking the level
   * as {@link Snapshotted} does; unless this copy holds the same level further on already (a
   * joining backup sent its copy again while the first was on its way).
   */
  private static void gather(Part p, SnapshotPage s) {
    if (s.page() == 0) {
      p.gathering = new Gathering(s.epoch(), s.primary(), s.level(), s.seq());
    }
    Gathering g = p.gathering;
    if (g == null || !g.continuedBy(s.epoch(), s.primary(), s.level(), s.seq(), s.page())) {
      return; // a page of a copy this log did not begin (a restart dropped its first)
    }
    g.data.putAll(s.data());
    g.next++;
    if (!s.last()) {
      g.pages.add(s);
      return;
    }
    p.gathering = null;
    if (p.levelled && p.epoch == s.epoch() && p.level == s.level() && p.seq >= s.seq()) {
      return;
    }
    takeCopy(p, s.epoch(), s.primary(), s.level(), s.seq(), g.data, s.numbering());
  }

  /**
   * The copy becomes {@code data}, as of write {@code seq}, taken as backup of {@code primary} at
   * level {@code level} of {@code epoch}, in {@code numbering} or a newer one it holds already.
   */
  private static void takeCopy(Part p, long epoch, int primary, long level, long seq,
      TreeMap<Bytes, Bytes> data, Numbering numbering) {
    adopt(p, epoch, primary, level);
    p.data = data;
    p.seq = seq;
    p.numbering = newer(p.numbering, numbering);
    forgetTail(p);
  }

  /** The copy's state has no name ({@link Level}): a new level sends it the whole snapshot. */
  private static void forgetState(Part p) {
    p.stateEpoch = 0;
    p.stateLevel = 0;
    forgetTail(p);
  }

  private Part part(int id) {
    return parts.computeIfAbsent(id, Part::new);
  }

  private Map<Integer, Long> held() {
    Map<Integer, Long> held = new HashMap<>();
    for (Part p : parts.values()) {
      if (p.role != Role.ABSENT || p.inherited) {
        // a partition a split left unconfigured reports no epoch: the control configures it
        held.put(p.id, p.configured ? p.epoch : 0L);
      }
    }
    return held;
  }

  private void send(int to, Message m) {
    out.add(new Envelope(self, to, m));
  }

  /** A request or a scan (exactly one of them) and where it stands. */
  private static final class Pending {
    final int client;
    final Request request;
    final Scan scan;
    /** In a round: the seq it is written under; 0: it writes nothing. */
    long seq;
    /** In a round: why a CAS failed its expectation; null: it did not fail. */
    String failure;
    /** A write carried into a new epoch: it holds once the level does. */
    boolean done;

    Pending(int client, Request request, Scan scan) {
      this.client = client;
      this.request = request;
      this.scan = scan;
    }

    int partition() {
      return scan != null ? scan.partition() : request.partition();
    }

    /** The bytes it brings to a round ({@link #ROUND_BYTES}). */
    long size() {
      if (scan != null) {
        return scan.from().length() + (scan.to() == null ? 0 : scan.to().length());
      }
      return request.key().length() + (request.value() == null ? 0 : request.value().length());
    }

    boolean writes() {
      return seq > 0;
    }
  }

  /**
   * Primary: a whole copy of the partition under way to {@link #to}, as of write {@link #seq}
   * of level {@link #level}, a page at a time ({@link #sendPage}).
   */
  private static final class Copy {
    final long epoch;
    final long level;
    final long seq;
    final Numbering numbering;
    final TreeSet<Integer> to;
    /** The last page each of {@link #to} took; none yet: absent. */
    final TreeMap<Integer, Integer> taken = new TreeMap<>();
    /** The number of the next page. */
    int page;
    /** The first key of the next page; null before the first and after the last. */
    Bytes next;
    /**
     * The values as of {@link #seq} (empty: absent then) of the keys not yet sent that were
     * written since: the pages are the partition as of that write, whatever is written while
     * they are sent.
     */
    final TreeMap<Bytes, Optional<Bytes>> before = new TreeMap<>();

    Copy(long epoch, long level, long seq, Numbering numbering, Collection<Integer> to) {
      this.epoch = epoch;
      this.level = level;
      this.seq = seq;
      this.numbering = numbering;
      this.to = new TreeSet<>(to);
    }

    /** Whether its last page is sent. */
    boolean sentWhole() {
      return page > 0 && next == null;
    }

    /** Whether fewer than {@link #COPY_WINDOW} pages are in flight to the slowest recipient. */
    boolean roomy() {
      int slowest = Integer.MAX_VALUE;
      for (int b : to) {
        slowest = Math.min(slowest, taken.getOrDefault(b, -1));
      }
      return page - 1 - slowest < COPY_WINDOW;
    }

    /** {@code key} is about to be written, over {@code value}: keeps what it was, if unsent. */
    void writing(Bytes key, Bytes value) {
      if (!sentWhole() && (next == null || key.compareTo(next) >= 0)
          && !before.containsKey(key)) {
        before.put(key, Optional.ofNullable(value));
      }
    }
  }

  /** A copy whose pages are arriving, and the writes of its level that came meanwhile. */
  private static final class Gathering {
    final long epoch;
    final int primary;
    final long level;
    final long seq;
    final TreeMap<Bytes, Bytes> data = new TreeMap<>();
    /** The pages so far, as logged: what a checkpoint holds of the copy. */
    final List<SnapshotPage> pages = new ArrayList<>();
    final List<Replicate> writes = new ArrayList<>();
    int next;

    Gathering(long epoch, int primary, long level, long seq) {
      this.epoch = epoch;
      this.primary = primary;
      this.level = level;
      this.seq = seq;
    }

    /** Whether {@code page} of that copy is one this copy took already. */
    boolean took(long epoch, int primary, long level, long seq, int page) {
      return is(epoch, primary, level, seq) && page < next;
    }

    /** Whether {@code page} of that copy is the one this copy takes next. */
    boolean continuedBy(long epoch, int primary, long level, long seq, int page) {
      return is(epoch, primary, level, seq) && page == next;
    }

    /** Whether this is the copy {@code primary} sent of its level as of write {@code seq}. */
    private boolean is(long epoch, int primary, long level, long seq) {
      return this.epoch == epoch && this.primary == primary && this.level == level
          && this.seq == seq;
    }
  }

  /** A write that took effect in a copy, and the value it replaced (null: the key was absent). */
  private record Change(long seq, Bytes key, Bytes value, Bytes previous) {
    long size() {
      return key.length() + value.length() + (previous == null ? 0 : previous.length());
    }
  }

  /** The requests a primary orders as one, in request order, and what they wait for. */
  private static final class Round {
    final List<Pending> requests = new ArrayList<>();
    /** What each backup is sent: the writes' replications, or the reads' confirmation. */
    final List<Message> messages = new ArrayList<>();
    /** The seq of the round's last write; 0: it writes nothing. */
    long lastSeq;
    /** The number of the reads' confirmation in a round that writes nothing; 0: none. */
    long confirm;

    /** Whether it waits for its backups: it writes or reads; failed CASes alone need nothing. */
    boolean waits() {
      return lastSeq > 0 || confirm > 0;
    }
  }

  /** One partition on this node. */
  private static final class Part {
    final int id;
    Role role = Role.ABSENT;
    long epoch;
    /** Whether a configuration (or a primary's snapshot) at {@link #epoch} was adopted. */
    boolean configured;
    int primary = -1;
    List<Integer> backups = List.of();
    long level;
    long nextLevel = 1;
    /** Backup: holds the snapshot of {@link #level}; primary: every backup acknowledged it. */
    boolean levelled;
    /** Primary after a restart: must level before serving. */
    boolean mustLevel;
    /** Primary: a backup is at a newer epoch; serves nothing until configured again. */
    boolean deposed;
    long seq;
    /** Which keys it holds ({@link Numbering#NONE}: not numbered). */
    Numbering numbering = Numbering.NONE;
    /** Keys a split moved here before any configuration of this partition reached the node. */
    boolean inherited;
    /** Ordered, for scans. */
    TreeMap<Bytes, Bytes> data = new TreeMap<>();
    /** Backup: the copy whose pages are arriving, if any (volatile: a restart drops it). */
    Gathering gathering;
    /** Replay: the pages of a checkpoint whose last record has not come yet, if any. */
    CheckpointPages.Gathered checkpointPages;
    final ArrayDeque<Pending> queue = new ArrayDeque<>();
    /** Primary: the round in progress, if any. */
    Round current;
    final TreeSet<Integer> answered = new TreeSet<>();
    long startedAt;
    long levelStartedAt;
    long sentAt;
    /** The snapshots of the level in progress sent again so far. */
    int levelResends;
    /**
     * With {@link #stateLevel}: the level whose state {@link #data} is, as of {@link #seq} (the
     * level this copy last began as primary or took as backup); 0: unknown (a split, inherited
     * keys, a checkpoint of an earlier build).
     */
    long stateEpoch;
    long stateLevel;
    /** The copy's last writes, oldest first, consecutive up to {@link #seq}. */
    final ArrayDeque<Change> tail = new ArrayDeque<>();
    long tailBytes;
    /** Primary: the level in progress offered by name; null: whole snapshots only. */
    Level offer;
    /** Primary: the backups sent the whole snapshot in the level in progress. */
    final TreeSet<Integer> wholeSent = new TreeSet<>();
    /** Primary: the whole copies under way, a page at a time. */
    final List<Copy> copies = new ArrayList<>();
    /** Primary: when each backup last took a page of a copy in the level in progress. */
    final TreeMap<Integer, Long> pageTakenAt = new TreeMap<>();
    /**
     * Primary: the backups its configuration named joining that do not yet hold every write it
     * numbered: nothing waits for them (volatile: a restarted primary waits for every backup,
     * as the control may count them level by then).
     */
    final TreeSet<Integer> joining = new TreeSet<>();
    /** Primary: the highest seq each joining backup acknowledged in the level in progress. */
    final TreeMap<Integer, Long> joinAcked = new TreeMap<>();
    /** Primary: when each joining backup last acknowledged further on, or was sent again. */
    final TreeMap<Integer, Long> joinHeardAt = new TreeMap<>();
    /** Primary: the whole copies sent again to joining backups in the level in progress. */
    int joinResends;
    long suspectedAt = NEVER;
    /**
     * Primary: draining for a planned change of primary ({@link Drain}) until then, starting no
     * round; {@link #NEVER}: serving.
     */
    long drainUntil = NEVER;

    Part(int id) {
      this.id = id;
    }
  }

}
