package io.partkit.replica;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;

/**
 * Everything the state machines say to each other and to clients. Every message that concerns a
 * partition names it and the epoch its sender is at; replica traffic also names the level (the
 * primary's levelling of its backups that the message belongs to).
 */
public sealed interface Message {

  /** What a client asks a partition's primary for. */
  enum Kind { GET, PUT, CAS }

  /** What became of a request. */
  enum Outcome {
    /** It took effect (a GET: the value was current at some moment between request and reply). */
    OK,
    /** It did not take effect and never will. */
    FAIL,
    /** It may have taken effect, or may still. */
    UNKNOWN
  }

  /**
   * A client's request.
   *
   * @param id the client's number for it, echoed in the reply
   * @param expected for CAS, the value the key must hold, null for "absent"
   * @param value for PUT and CAS, the new value
   */
  record Request(long id, int partition, Kind kind, Bytes key, Bytes expected, Bytes value)
      implements Message {
    public Request {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(key, "key");
      if (kind != Kind.GET && value == null) {
        throw new IllegalArgumentException(kind + " needs a value");
      }
    }
  }

  /** The answer to a {@link Request}; {@code value} is a GET's value (null: absent). */
  record Reply(long id, Outcome outcome, Bytes value, String why) implements Message {}

  /**
   * A client's scan of one partition: its keys in {@code [from, to)} in unsigned byte order, at
   * most {@code limit} of them (and at most {@link Replica#PAGE_ENTRIES} and about {@link
   * Replica#PAGE_BYTES}). Served as a read is: in a round, answered once confirmed. {@code
   * modulus} and {@code generation} are the numbering the client routed by ({@link Numbering}): a
   * primary numbering the partition otherwise refuses it, since the partition holds other keys
   * than the client thinks.
   *
   * @param to the first key past the range; null: no end
   */
  record Scan(long id, int partition, long modulus, Bytes from, Bytes to, int limit,
      long generation) implements Message {
    /** A scan routed by a table never merged. */
    public Scan(long id, int partition, long modulus, Bytes from, Bytes to, int limit) {
      this(id, partition, modulus, from, to, limit, 0);
    }

    public Scan {
      Objects.requireNonNull(from, "from (the empty key is the first)");
      if (limit < 1) {
        throw new IllegalArgumentException("a scan's limit must be at least 1, got " + limit);
      }
      if (to != null && from.compareTo(to) > 0) {
        throw new IllegalArgumentException("a scan's from " + from + " is after its to " + to);
      }
    }
  }

  /**
   * The answer to a {@link Scan}: OK with the partition's entries in range at one moment between
   * request and reply, ascending; {@code more}: keys of the range remain after the last entry (ask
   * again from the last key plus a zero byte). FAIL: refused, with no entries.
   */
  record Page(long id, Outcome outcome, SortedMap<Bytes, Bytes> entries, boolean more, String why)
      implements Message {
    public Page {
      entries = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(entries));
    }
  }

  /** Primary to backup: the write numbered {@code seq} under the primary's level. */
  record Replicate(int partition, long epoch, long level, long seq, Bytes key, Bytes value)
      implements Message {}

  /** Primary to backup: "are you still mine, at this epoch and level?", for a read. */
  record Confirm(int partition, long epoch, long level, long round) implements Message {}

  /**
   * Primary to backup: page {@code page} of the whole partition as of write {@code seq}, starting
   * a level, in {@code numbering}. The pages, in key order, together hold the partition; {@code
   * last} marks the final one. A backup takes them in order and the level with the last.
   */
  record Snapshot(int partition, long epoch, long level, long seq, SortedMap<Bytes, Bytes> data,
      Numbering numbering, int page, boolean last) implements Message {
    public Snapshot {
      Objects.requireNonNull(numbering, "numbering");
      data = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(data));
      if (page < 0) {
        throw new IllegalArgumentException("a snapshot's page must be at least 0, got " + page);
      }
    }

    /** A snapshot in one page. */
    public Snapshot(int partition, long epoch, long level, long seq, SortedMap<Bytes, Bytes> data,
        Numbering numbering) {
      this(partition, epoch, level, seq, data, numbering, 0, true);
    }

    /** A snapshot in one page of a driver that numbers nothing. */
    public Snapshot(int partition, long epoch, long level, long seq, SortedMap<Bytes, Bytes> data) {
      this(partition, epoch, level, seq, data, Numbering.NONE);
    }
  }

  /** One write of a {@link Level}'s tail: the write numbered {@code seq}. */
  record Write(long seq, Bytes key, Bytes value) {}

  /**
   * Primary to backup: level {@code level} at {@code epoch} begins from the state the primary
   * holds, which is the state of its earlier level {@code fromLevel} at epoch {@code fromEpoch} as
   * of write {@code seq}, in {@code numbering}; {@code tail}
   * holds its last writes up to {@code seq}, ascending and consecutive. A backup whose own state
   * is of that same level at a nearby seq reaches the primary's without a copy (forward by the
   * tail, back by undoing its own last writes) and acknowledges as it would a {@link Snapshot};
   * any other refuses, and is sent the whole snapshot.
   */
  record Level(int partition, long epoch, long level, long fromEpoch, long fromLevel, long seq,
      List<Write> tail, Numbering numbering) implements Message {
    public Level {
      Objects.requireNonNull(numbering, "numbering");
      tail = List.copyOf(tail);
      for (int i = 0; i < tail.size(); i++) {
        if (tail.get(i).seq() != seq - tail.size() + 1 + i) {
          throw new IllegalArgumentException("a level's tail must be the writes up to seq " + seq
              + " in order, got seqs " + tail.stream().map(Write::seq).toList());
        }
      }
    }
  }

  /**
   * Backup to primary: it took page {@code page} of the {@link Snapshot} as of write {@code seq}
   * (the last page is answered by an {@link Ack}). A primary keeps a few pages of a copy in
   * flight and sends the next as earlier ones are taken, so a copy goes at the pace its backup
   * takes it.
   */
  record Taken(int partition, long epoch, long level, long seq, int page) implements Message {}

  /** Backup to primary: it holds writes up to {@code seq} under this level (durably). */
  record Ack(int partition, long epoch, long level, long seq) implements Message {}

  /** Backup to primary: it is still at this epoch and level, for read {@code round}. */
  record Confirmed(int partition, long epoch, long level, long round) implements Message {}

  /**
   * Backup to primary: not applied. {@code stale}: the backup is at the newer {@code epoch}, the
   * sender is deposed; otherwise the backup needs a snapshot first.
   */
  record Refuse(int partition, long epoch, boolean stale) implements Message {}

  /**
   * Control to node: the partition's configuration at {@code epoch}, in {@code numbering} ({@link
   * Numbering#NONE}: a control that numbers nothing). A modulus larger than the one a node knows
   * tells it of splits it has not carried out yet: it divides its copy first.
   *
   * @param joining the backups the control does not know to be level (a migration's target, a
   *     replacement copy): the primary serves without waiting for them, copies them meanwhile,
   *     and reports the partition {@link Levelled} once they too hold every write it acknowledged
   */
  record Configure(int partition, long epoch, int primary, List<Integer> backups,
      Numbering numbering, java.util.SortedSet<Integer> joining) implements Message {
    public Configure {
      Objects.requireNonNull(numbering, "numbering");
      backups = List.copyOf(backups);
      joining = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(joining));
      if (!backups.containsAll(joining)) {
        throw new IllegalArgumentException("joining " + joining + " are not all backups "
            + backups);
      }
    }

    /** A configuration whose every backup is level. */
    public Configure(int partition, long epoch, int primary, List<Integer> backups,
        Numbering numbering) {
      this(partition, epoch, primary, backups, numbering, new java.util.TreeSet<>());
    }

    /** A configuration of a control that numbers nothing. */
    public Configure(int partition, long epoch, int primary, List<Integer> backups) {
      this(partition, epoch, primary, backups, Numbering.NONE);
    }

    /** Every member, primary first. */
    public List<Integer> members() {
      java.util.ArrayList<Integer> all = new java.util.ArrayList<>(backups.size() + 1);
      all.add(primary);
      all.addAll(backups);
      return all;
    }
  }

  /** Primary to control: these backups have not answered in time at {@code epoch}. */
  record Suspect(int partition, long epoch, Set<Integer> suspects) implements Message {
    public Suspect {
      suspects = Set.copyOf(suspects);
    }
  }

  /** Primary to control: every member holds the primary's state at {@code epoch}. */
  record Levelled(int partition, long epoch) implements Message {}

  /**
   * Control to primary: a planned change of primary follows at the next epoch (a migration's
   * cut-over, a placement's or a leaving node's handover). The primary finishes the round in
   * progress, starts no other, and answers {@link Drained}: the new primary then takes over a
   * partition whose every acknowledged write its backups hold and whose writes in flight are
   * answered, not left unknown. The requests that arrive meanwhile wait, and fail when the new
   * configuration comes (they never took effect; clients ask the new primary). A primary that
   * hears nothing further within the suspicion time serves again.
   */
  record Drain(int partition, long epoch) implements Message {}

  /** Primary to control: no round is in progress at {@code epoch}, and none starts. */
  record Drained(int partition, long epoch) implements Message {}

  /**
   * Control to primary: the planned change a {@link Drain} announced is off (a move rolled back,
   * the targets moved back), so the primary at {@code epoch} serves again at once rather than
   * wait out its drain.
   */
  record Resume(int partition, long epoch) implements Message {}

  /**
   * Control to node: a heartbeat, naming the node's incarnation as the control's durable state
   * holds it (0: none). A node with an incarnation takes no configuration and no replica traffic
   * until the control names its own: one restarted on a wiped disk under its number is a new
   * incarnation, and the control must have counted its copies lost first. To a node that has not
   * said it was named ({@link Pong#acknowledged}), the heartbeat also carries {@code fences}: the
   * current configuration of every partition, which the node takes before anything else, so
   * that a wiped node again refuses the primaries its lost log had fenced off.
   */
  record Ping(long n, long incarnation, List<Configure> fences) implements Message {
    public Ping {
      fences = List.copyOf(fences);
    }

    /** A heartbeat of a control that names no incarnation. */
    public Ping(long n) {
      this(n, 0, List.of());
    }
  }

  /**
   * Node to control: alive; the epoch of each partition it is a member of, as it knows it;
   * {@code served}, the requests it answered as a partition's primary, by partition, counted
   * since it started (its load, which the control passes on to whoever plans by load); and its
   * {@code incarnation}, drawn when it started on an empty log and kept in its log (0: a driver
   * that names none).
   */
  record Pong(long n, Map<Integer, Long> held, Map<Integer, Long> served, long incarnation,
      boolean acknowledged) implements Message {
    public Pong {
      held = Map.copyOf(held);
      served = Map.copyOf(served);
    }

    /** A heartbeat answer of a node with no incarnation. */
    public Pong(long n, Map<Integer, Long> held, Map<Integer, Long> served) {
      this(n, held, served, 0, true);
    }

    /** A heartbeat answer that reports no load, of a node with no incarnation. */
    public Pong(long n, Map<Integer, Long> held) {
      this(n, held, Map.of());
    }
  }
}
