package io.partkit.simulation;

import io.partkit.replica.Envelope;
import io.partkit.replica.LogReach;
import io.partkit.replica.Record;
import io.partkit.replica.ReplyBarriers;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * A simulated log with group commit, as a node's disk and the control's store each have one:
 * records are appended, and a sync that ends 1-8 ms of virtual time after it starts makes every
 * record appended before it durable. A message handed over with records waits until they and
 * every record before them are durable, since it may depend on them. Its owner says whether a
 * sync's end still counts (a crash in between voids it) and how to act on it; a crash decides
 * what of the appended tail survives.
 */
final class SimLog {

  private final VirtualTime time;
  private final Random random;
  private final Consumer<Envelope> send;
  private final List<Record> durable = new ArrayList<>();
  private final List<Record> unsynced = new ArrayList<>();
  private final List<Waiting> waiting = new ArrayList<>();
  /**
   * Records a rewrite folded away: a barrier counts every record appended, so the durable ones
   * are {@code durable.size() + folded} of them.
   */
  private int folded;
  private boolean syncing;
  /**
   * How many of {@link #durable} a sync or rewrite last made durable: the mark a real driver keeps
   * beside its log, written and forced with each sync before the messages it releases leave (so
   * it never says less than what anything acknowledged depends on), and with each rewrite as it
   * takes the log's place. A crash that keeps appends leaves the log longer than it, never
   * shorter; only {@link #truncate} does. -1 before anything was made durable: none recorded.
   */
  private int reach = -1;
  /**
   * What a replica's client replies depend on ({@link ReplyBarriers}), as a real node's driver
   * has them wait; null (the control's store): every message waits for every record before it.
   */
  private ReplyBarriers barriers;

  private record Waiting(int barrier, Envelope envelope) {}

  /**
   * @param random the owner's stream: a sync's length and a torn tail are drawn from it, in the
   *     order the owner's events ask
   * @param send how a message leaves once the records before it are durable
   */
  SimLog(VirtualTime time, Random random, Consumer<Envelope> send) {
    this.time = time;
    this.random = random;
    this.send = send;
  }

  /** The durable records, oldest first: what a restart replays. */
  List<Record> durable() {
    return Collections.unmodifiableList(durable);
  }

  /** How far the log reached when last made durable ({@link #reach}), or null if never. */
  LogReach reach() {
    return reach < 0 ? null : new LogReach(reach, 0);
  }

  /**
   * Cuts the durable records to their first {@code kept}, at a record boundary, leaving the reach
   * as it was (a log restored from an older copy, a synced tail the file system lost).
   */
  void truncate(int kept) {
    durable.subList(kept, durable.size()).clear();
  }

  /** Whether nothing is appended and unsynced, and no message waits. */
  boolean idle() {
    return unsynced.isEmpty() && waiting.isEmpty() && !syncing;
  }

  /** The records appended and not yet durable, oldest first. */
  List<Record> unsynced() {
    return List.copyOf(unsynced);
  }

  /** The messages waiting for records to be durable, in the order they were handed over. */
  List<Envelope> waitingMessages() {
    return waiting.stream().map(Waiting::envelope).toList();
  }

  /** Replaces the durable record at {@code index} (a disk that changed its bytes). */
  void replace(int index, UnaryOperator<Record> change) {
    durable.set(index, change.apply(durable.get(index)));
  }

  /**
   * Replaces every durable record with {@code records}, which must restore the same state (a log
   * compacted to a checkpoint, atomically as a real one is: a crash finds the old records or the
   * new). What is appended and not yet synced follows them as it followed the old ones, and a sync
   * under way and the messages waiting for it are untouched.
   */
  void rewrite(List<Record> records) {
    folded += durable.size() - records.size();
    durable.clear();
    durable.addAll(records);
    reach = records.size();
  }

  /** How many records were made durable, counting those a rewrite folded. */
  private int durableCount() {
    return durable.size() + folded;
  }

  /**
   * From now on, a client's reply waits only for the records {@code barriers} says it depends on
   * (a replica's log: the owner hands {@code barriers} what its core is stepped, and a new one
   * at each start).
   */
  void replyBarriers(ReplyBarriers barriers) {
    this.barriers = barriers;
  }

  /**
   * Appends {@code records}, and hands each of {@code messages} to be sent once every record
   * appended so far is durable (a client's reply: every record it depends on, see {@link
   * #replyBarriers}): at once if they already are, or when {@code early} (a planted bug that
   * sends before syncing).
   */
  void write(List<Record> records, List<Envelope> messages, boolean early) {
    unsynced.addAll(records);
    int barrier = durableCount() + unsynced.size();
    if (barriers != null) {
      barriers.appended(records, barrier);
    }
    for (Envelope e : messages) {
      int needs = barriers == null ? barrier : (int) barriers.barrier(e, barrier);
      if (early || needs <= durableCount()) {
        send.accept(e);
      } else {
        waiting.add(new Waiting(needs, e));
      }
    }
  }

  /**
   * Starts a sync when records wait for one and none is under way. {@code end} wraps the sync's
   * end, at its start: the owner's check that the life it started in is still the one running,
   * and how the owner runs it.
   */
  void syncIfNeeded(UnaryOperator<Runnable> end) {
    if (!unsynced.isEmpty() && !syncing) {
      sync(end);
    }
  }

  private void sync(UnaryOperator<Runnable> end) {
    syncing = true;
    int upTo = durableCount() + unsynced.size();
    Runnable synced = end.apply(() -> synced(upTo, end));
    time.schedule(1 + random.nextInt(8), synced);
  }

  private void synced(int upTo, UnaryOperator<Runnable> end) {
    syncing = false;
    while (durableCount() < upTo) {
      durable.add(unsynced.remove(0));
    }
    reach = durable.size();
    if (barriers != null) {
      barriers.durable(durableCount());
    }
    List<Waiting> ready = new ArrayList<>();
    waiting.removeIf(w -> {
      if (w.barrier() <= durableCount()) {
        ready.add(w);
        return true;
      }
      return false;
    });
    ready.forEach(w -> send.accept(w.envelope()));
    if (!unsynced.isEmpty()) {
      sync(end);
    }
  }

  /** The disk is wiped: no records, and no reach recorded. */
  void wipe() {
    rewrite(List.of());
    reach = -1;
  }

  /** A process crash: every appended record survives (the kernel has it), no message waits. */
  void crashKeepingAppends() {
    durable.addAll(unsynced);
    forgetTail();
  }

  /**
   * A power loss: the unsynced tail may have reached the disk in part, so it is cut anywhere (a
   * torn record is dropped).
   */
  void powerLoss() {
    if (!unsynced.isEmpty()) {
      int kept = random.nextInt(unsynced.size() + 1);
      durable.addAll(unsynced.subList(0, kept));
    }
    forgetTail();
  }

  /** A crash of a store that keeps only what it made durable. */
  void loseUndurable() {
    forgetTail();
  }

  private void forgetTail() {
    unsynced.clear();
    waiting.clear();
    syncing = false;
  }
}
