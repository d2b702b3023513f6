package io.partkit.replica;

import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Record.Written;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How many records must be durable before a message of a {@link Replica} leaves: a driver's rule,
 * kept here so that every driver applies the same one (the simulator's, whose checker and planted
 * bugs test it, and the node's).
 *
 * <p>A message may depend on any record appended before it, so by default it waits for all of
 * them ({@link Ready}). A client's {@link Reply} to a request on one key depends on less: what it
 * says (the value read, the value a CAS found, that a write took effect) is the key's state, which
 * only the key's own {@link Written} records and the records that are not writes (a level, a
 * copy, a split, a checkpoint: anything that may change a whole partition) made. So it waits for
 * the last of those appended before it, not for the writes of other keys still being synced: a
 * read of a key nobody is writing leaves without waiting for a sync. Records are durable as a
 * prefix of the log, so waiting for a record waits for every record before it too.
 *
 * <p>Why that keeps every history linearizable. Each key's operations are answered exactly as
 * before: a reply leaves only once every record its key's state came from is durable, so a crash
 * can lose only writes of other keys, which no reply of this key observed. Linearizability is
 * local (a history is linearizable when each object's is: Herlihy and Wing), so the whole
 * history is too. A reply may overtake an earlier reply to a write of another key; the two
 * requests were concurrent (both pending), so either order is allowed. Scans (many keys) and
 * every other message keep the default.
 *
 * <p>Not thread-safe: the driver calls it from whichever thread holds the machine. Positions
 * count every record appended since the driver began counting (1 is the first), as the driver's
 * barriers do; they need not start at 1, only grow.
 */
public final class ReplyBarriers {

  /**
   * Requests remembered at most: beyond, they are forgotten (their replies then wait for every
   * record, which is always safe); a request the machine never answers costs nothing for good.
   */
  static final int MAX_ASKED = 1 << 16;

  /** A client's request, by the client's endpoint and its id. */
  private record Asked(int client, long id) {}

  /** A key of a partition. */
  private record Key(int partition, Bytes key) {}

  /** What a request whose reply must wait for every record maps to. */
  private static final Key ANY = new Key(-1, null);

  /** A key's last write not yet known durable, at its position. */
  private record Pending(long position, Key key) {}

  private final Map<Asked, Key> asked = new HashMap<>();
  /** Each key's last write appended and not yet known durable, by its position. */
  private final Map<Key, Long> lastWrite = new HashMap<>();
  /** The same writes in the order appended, to forget them as they become durable. */
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  /** The position of the last record appended that is not a write of one key. */
  private long floor;

  /** The machine is handed {@code in}: a client's request is remembered until its reply. */
  public void stepped(Envelope in) {
    if (in.message() instanceof Request r) {
      if (asked.size() >= MAX_ASKED) {
        asked.clear();
      }
      // a client that asks again under one id for another key (none of partkit's does) would
      // have either reply wait for that key's writes: its replies wait for every record instead
      asked.merge(new Asked(in.from(), r.id()), new Key(r.partition(), r.key()),
          (before, now) -> before.equals(now) ? now : ANY);

    }
  }

  /** {@code records} were appended, the last of them at position {@code last}. */
  public void appended(List<Record> records, long last) {
    long position = last - records.size();
    for (Record r : records) {
      position++;
      if (r instanceof Written w) {
        Key k = new Key(w.partition(), w.key());
        lastWrite.put(k, position);
        pending.add(new Pending(position, k));
      } else {
        floor = position;
      }
    }
  }

  /**
   * The position of the last record {@code out} depends on, {@code last} being the last record
   * appended so far: a reply to a client's request on one key, its key's last write or the last
   * record that is not a write, whichever is later; any other message, {@code last}.
   */
  public long barrier(Envelope out, long last) {
    if (!(out.message() instanceof Reply reply)) {
      return last;
    }
    Key k = asked.remove(new Asked(out.to(), reply.id()));
    if (k == null || k == ANY) {
      return last;
    }
    Long write = lastWrite.get(k);
    return Math.min(last, Math.max(floor, write == null ? 0 : write));
  }

  /** Every record up to position {@code count} is durable: the writes it covers are forgotten. */
  public void durable(long count) {
    while (!pending.isEmpty() && pending.peek().position() <= count) {
      Pending p = pending.poll();
      lastWrite.remove(p.key(), p.position());
    }
  }

  /** Writes not yet known durable that it remembers: for tests. */
  int pendingWrites() {
    return lastWrite.size();
  }

  /** Requests it remembers awaiting their reply: for tests. */
  int askedCount() {
    return asked.size();
  }
}
