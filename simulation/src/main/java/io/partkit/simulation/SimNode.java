package io.partkit.simulation;

import io.partkit.replica.Bytes;
import io.partkit.replica.Envelope;
import io.partkit.replica.LogReach;
import io.partkit.replica.Ready;
import io.partkit.replica.Record;
import io.partkit.replica.Replica;
import io.partkit.replica.ReplyBarriers;
import io.partkit.replica.Timing;
import io.partkit.replica.mutants.Mutant;
import io.partkit.replica.mutants.NodeMutations;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * The simulator's driver of one replica core: it ticks the core, appends the records of each
 * {@link Ready} to a simulated disk and sends its messages only once those records are synced
 * (a sync takes 1-8 ms and covers every record appended before it: group commit). A crash keeps
 * what was synced and, after a process crash, what was appended too; after a power loss, any
 * prefix of the unsynced tail (a torn record is dropped). Paused, it holds everything it is sent
 * and handles it in order on resume.
 */
final class SimNode {

  static final long TICK_MILLIS = 10;
  /**
   * The entries of a whole copy's page: the simulator's partitions hold a few dozen keys, so
   * fine pages make most copies take several, and the paging is exercised on every seed.
   */
  static final int PAGE_ENTRIES = 1;
  /**
   * While running, the durable records are compacted each time this many were made durable since
   * the log was last compacted (a real node counts bytes; a simulated log is short).
   */
  static final int COMPACT_RECORDS = 64;
  /**
   * A checkpoint puts a partition's data in pages of this many bytes (keys and values, 8 bytes an
   * entry: four of the workload's entries a page), so that compactions and restarts under faults
   * go through paged checkpoints, which a real node writes only past a megabyte a partition.
   */
  static final long CHECKPOINT_PAGE_BYTES = 96;

  final int id;
  private final VirtualTime time;
  private final Random random;
  private final SimNetwork network;
  private final Timing timing;
  private final Mutant mutant;
  Replica core;
  /** Bumped at every crash and start, so that events of an earlier life do nothing. */
  private int incarnation;
  boolean paused;
  private final List<Runnable> deferred = new ArrayList<>();
  private final SimLog disk;
  boolean diskFull;
  /** The synced record damaged while the node was down, or -1. */
  private int damaged = -1;
  /** How many times it started again after a crash. */
  private int restarts;
  /** The durable records' count at which the log is next compacted while running. */
  private int compactAt = COMPACT_RECORDS;
  /** What its last start found short of its reach, or null if it found its log whole. */
  private LogReach.Shorter startedShort;
  /** Lost for good: never started again. */
  boolean gone;
  /** The node-side planted bug, if any: rewrites of what the core is handed, sends and logs. */
  private final NodeMutations mutations;
  /** What this life's client replies depend on in the log, as a real node's driver has it. */
  private ReplyBarriers barriers;

  SimNode(int id, VirtualTime time, Random random, SimNetwork network, Timing timing,
      Mutant mutant) {
    this.id = id;
    this.time = time;
    this.random = random;
    this.network = network;
    this.timing = timing;
    this.mutant = mutant;
    this.mutations = mutant == null ? null : new NodeMutations(mutant);
    this.disk = new SimLog(time, random, this::send);
  }

  boolean up() {
    return core != null;
  }

  /**
   * Starts a core from the disk's records (none: a fresh node) and its ticks. A log shorter than
   * it reached ({@link LogReach#judge}) is set aside, and the node starts as on a wiped disk.
   */
  void start() {
    LogReach.Verdict verdict = LogReach.judge(disk.reach(),
        new LogReach(disk.durable().size(), 0), true);
    startedShort = verdict instanceof LogReach.Shorter s ? s : null;
    if (startedShort != null) {
      disk.wipe();
    }
    List<Record> log = verdict.startFrom(disk.durable());
    core = log.isEmpty() ? new Replica(id, timing, PAGE_ENTRIES)
        : Replica.restore(id, timing, log, PAGE_ENTRIES);
    incarnation++;
    // the replica's own incarnation, taken only on an empty log: unique to this life of the
    // node, and drawn from no random stream
    core.incarnate(((long) id + 1) << 32 | incarnation);
    barriers = new ReplyBarriers();
    disk.replyBarriers(barriers);
    int inc = incarnation;
    time.schedule(1 + random.nextInt((int) TICK_MILLIS), () -> tick(inc));
  }

  private void tick(int inc) {
    if (incarnation != inc || !up()) {
      return;
    }
    act(() -> {
      core.tick(time.now());
      drain();
    });
    time.schedule(TICK_MILLIS, () -> tick(inc));
  }

  /** Hands {@code e} to the core, now or when the node resumes; nothing if it is down. */
  void receive(Envelope e) {
    if (!up()) {
      return;
    }
    int inc = incarnation;
    act(() -> {
      if (incarnation != inc || !up()) {
        return;
      }
      Envelope in = mutations == null ? e : mutations.inbound(core, id, e, network::transmit);
      if (in != null) {
        barriers.stepped(in);
        core.step(in);
        drain();
      }
    });
  }

  /** Runs {@code action} now, or when the node resumes if paused; not after a crash. */
  private void act(Runnable action) {
    int inc = incarnation;
    Runnable guarded = () -> {
      if (incarnation == inc && up()) {
        action.run();
      }
    };
    if (paused) {
      deferred.add(guarded);
    } else {
      guarded.run();
    }
  }

  /** Acts on what the core asks: records to the disk, messages once those are synced. */
  private void drain() {
    Ready r = core.ready();
    if (r.isEmpty()) {
      return;
    }
    if (!r.records().isEmpty() && diskFull) {
      // the append fails: the node stops rather than go on without its records
      crash(false);
      return;
    }
    disk.write(mutations == null ? r.records() : mutations.logged(r.records()), r.messages(),
        mutant == Mutant.ACK_BEFORE_SYNC);
    disk.syncIfNeeded(this::inThisLife);
    compactIfGrown();
    if (r.more()) {
      // the next page of a copy under way: a turn of its own, after what is due now
      int inc = incarnation;
      time.schedule(0, () -> {
        if (incarnation == inc && up()) {
          act(this::drain);
        }
      });
    }
  }

  /**
   * Compacts the log while running, as a real node does: not from the live core, which may be
   * ahead of its durable records, but from those records alone, restored into a core of its own;
   * the records appended after them and not yet synced stay after them. It happens at a moment
   * the run's events decide (the durable log's growth), drawing nothing from the seed's streams,
   * so that runs compare with and without it; a real compaction's steps and crashes between them
   * are tested on the real log.
   */
  private void compactIfGrown() {
    List<Record> log = disk.durable();
    if (log.size() < compactAt) {
      return;
    }
    List<Record> checkpoint = Replica.restore(id, timing, log, PAGE_ENTRIES)
        .checkpoint(CHECKPOINT_PAGE_BYTES);
    if (checkpoint.size() < log.size()) {
      disk.rewrite(checkpoint);
    }
    compactAt = disk.durable().size() + COMPACT_RECORDS;
  }

  /** {@code synced}, run as this node acts, unless it crashed or started again meanwhile. */
  private Runnable inThisLife(Runnable synced) {
    int inc = incarnation;
    return () -> {
      if (incarnation == inc && up()) {
        act(synced);
      }
    };
  }

  private void send(Envelope e) {
    if (mutations != null && !mutations.outbound(e)) {
      return;
    }
    network.transmit(e);
  }

  /** Stops: a process crash keeps every append, a power loss only what was synced. */
  void crash(boolean keepUnsynced) {
    if (!up()) {
      return;
    }
    if (keepUnsynced) {
      disk.crashKeepingAppends();
    } else {
      disk.powerLoss();
    }
    core = null;
    paused = false;
    deferred.clear();
    incarnation++;
  }

  /** The disk is wiped while the node is down: it restarts with no records. */
  void wipe() {
    disk.wipe();
  }

  /** The log is cut to its first {@code kept} durable records while the node is down. */
  void truncate(int kept) {
    disk.truncate(kept);
  }

  /**
   * Damages the last synced record holding a value, a write, a checkpoint or a checkpoint's page
   * (the disk changed a value's bytes); false if none.
   */
  boolean damageLastValue() {
    List<Record> log = disk.durable();
    for (int i = log.size() - 1; i >= 0; i--) {
      if (log.get(i) instanceof Record.Written
          || log.get(i) instanceof Record.Checkpoint c && !c.data().isEmpty()
          || log.get(i) instanceof Record.CheckpointPage page && !page.data().isEmpty()) {
        damaged = i;
        return true;
      }
    }
    return false;
  }

  /** The durable records a restart replays, oldest first: for tests and observers. */
  List<Record> durableRecords() {
    return disk.durable();
  }

  int damagedRecord() {
    return damaged;
  }

  /** What its last start found its log short of, or null: for the history. */
  LogReach.Shorter startedShort() {
    return startedShort;
  }

  /**
   * Starts again after a crash. A damaged record is found by its checksum and the node refuses to
   * start (false: an operator must replace it), unless the planted bug replays it unchecked. Every
   * second restart (the first, the third, ...) then rewrites the log to the restored core's
   * checkpoint, as a real node does at every start: runs so restart both from a compacted log and
   * from one grown over restarts, and compacting draws nothing from the seed's streams.
   */
  boolean restart() {
    if (up() || gone) {
      return true;
    }
    diskFull = false;
    if (damaged >= 0) {
      if (mutant != Mutant.UNCHECKED_RECORDS) {
        return false;
      }
      disk.replace(damaged, SimNode::damage);
      damaged = -1;
    }
    start();
    if (restarts++ % 2 == 0) {
      // just restored, not yet stepped: its state is exactly what its durable records give
      List<Record> checkpoint = core.checkpoint(CHECKPOINT_PAGE_BYTES);
      if (disk.durable().size() > checkpoint.size()) {
        disk.rewrite(checkpoint);
      }
    }
    compactAt = disk.durable().size() + COMPACT_RECORDS;
    return true;
  }

  private static Record damage(Record r) {
    if (r instanceof Record.Written w) {
      return new Record.Written(w.partition(), w.epoch(), w.level(), w.seq(), w.key(),
          Bytes.ofLong(-7 - w.value().toLong()));
    }
    if (r instanceof Record.Checkpoint c && !c.data().isEmpty()) {
      TreeMap<Bytes, Bytes> data = new TreeMap<>(c.data());
      Bytes key = data.lastKey();
      data.put(key, Bytes.ofLong(-7 - data.get(key).toLong()));
      return new Record.Checkpoint(c.partition(), c.epoch(), c.configured(), c.role(),
          c.primary(), c.backups(), c.deposed(), c.level(), c.nextLevel(), c.levelled(), c.seq(),
          c.numbering(), c.inherited(), c.stateEpoch(), c.stateLevel(), data, c.pages());
    }
    if (r instanceof Record.CheckpointPage page && !page.data().isEmpty()) {
      TreeMap<Bytes, Bytes> data = new TreeMap<>(page.data());
      Bytes key = data.lastKey();
      data.put(key, Bytes.ofLong(-7 - data.get(key).toLong()));
      return new Record.CheckpointPage(page.partition(), page.page(), data);
    }
    return r;
  }

  void resume() {
    if (!paused) {
      return;
    }
    paused = false;
    List<Runnable> held = new ArrayList<>(deferred);
    deferred.clear();
    held.forEach(Runnable::run);
  }

  @Override
  public String toString() {
    return "n" + id + " up=" + up() + " gone=" + gone + " paused=" + paused + " disk-full="
        + diskFull;
  }
}
