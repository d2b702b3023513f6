package io.partkit.replica;

import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Drain;
import io.partkit.replica.Message.Drained;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Message.Ping;
import io.partkit.replica.Message.Pong;
import io.partkit.replica.Message.Resume;
import io.partkit.replica.Message.Suspect;
import io.partkit.replica.Record.ControlState;
import io.partkit.replica.Record.ControlState.Row;
import io.partkit.spi.HashSlots;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.hash.KeyHash;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The coordinator's decisions for the Fixed Partitions protocol as a deterministic state machine:
 * the partition table with an epoch per partition, who is up (heartbeats), and which members are
 * known to be level (hold every write their partition acknowledged).
 *
 * <p>What must survive a restart of the coordinator is made durable as the core's rule has it: a
 * {@link ControlState} record in {@link #ready} after every change of the table (each partition's
 * epoch, members, numbering, level members, members that lost their copy, split origin and move
 * under way) or of the nodes it knows (who joined, who is leaving, each one's incarnation), before
 * any message that announces it; the driver keeps those
 * records in the coordinator's linearizable store. {@link #restore} rebuilds the control from any
 * prefix of them. Everything else is volatile and starts afresh: heartbeat times (who is up),
 * suspicions, quarantines, the outgoing queue. A restored control has heard nobody yet: it counts
 * a node up only once it answers, and changes no configuration for a full down-time from its
 * first tick (every node that is up answers in that time, so it does not take every node for
 * down at once); then it gives each partition whose level it does not know a new epoch with the
 * same members, so that its primary levels them again and reports (a report sent while the
 * control was down is lost). It never hands out an epoch again: a configuration leaves only once
 * the record holding its epoch is durable.
 *
 * <p>Each tick it makes at most one change per partition, in this order: a primary that is down
 * or leaving is replaced by a level backup (one that is leaving too, when a down primary has no
 * other: it serves until the partition is placed elsewhere; a leaving one that serves, once no
 * backup that is up is still joining); backups its primary suspects are taken out; a live
 * migration takes its next step (the target joins; once level, it becomes the primary and the
 * source leaves; a target that goes down before that is taken out again, the roll back); a
 * partition short of replicas gets the least loaded up node, once the previous change is level.
 * A new primary is always a level member of the configuration it replaces, and it adopts the new
 * epoch before serving, so the old primary's reads and writes are refused from then on. A planned
 * change of primary (a migration's cut-over, a leaving primary's or a placement's handover) waits
 * for the primary to {@link Drain} the partition, a resend interval at most, so that no round in
 * flight is left unknown; the answer is volatile, as the request is.
 *
 * <p>Given a {@link Placement}, the control places copies by it instead of by load: the first
 * table is the placement's, and after the steps above that keep a partition safe (failover,
 * suspects, down backups, a migration) each partition moves toward its target, once its previous
 * change is level and its primary is up: a missing target member joins as a backup; then the
 * target primary, level by then, takes over, the members outside the target leaving in the same
 * change (or, with the primary in place, on their own), so a graceful move never lowers
 * redundancy. A placement may keep the place of a node that may not hold copies and is not
 * leaving free of spares (targets decided elsewhere wait for their owner to replace it). The
 * targets are asked for again whenever the nodes that may hold copies (up, not leaving, not
 * quarantined), those leaving or the partitions change, never for the table's own steps. A
 * migration still runs to its end; the placement then moves the partition back to its target.
 * The placement is not in the records: a restarted control is given it again. A driver may
 * replace it while the control runs ({@link #place}), as when a coordinator outside the core
 * decides the table and the control carries it out.
 *
 * <p>A split ({@link #split}) is committed here first, as the new numbering with the old owners:
 * the partition's modulus doubles at a new epoch and the new partition, at the same epoch, has
 * the same members, level as they were (their copies hold its keys). The nodes then divide their
 * copies when a configuration or snapshot of the new numbering reaches them.
 *
 * <p>A merge ({@link #merge}) is a split undone, committed here only when it is safe as it
 * stands: the two halves have one configuration, all level and up, and the lower takes both at
 * an epoch past both, at the numbering of half the modulus one generation on. The nodes combine
 * their copies when the new numbering reaches them. It moves no data between nodes; halves on
 * different nodes are refused with the reason ({@link #whyNotMerge}).
 */
public final class Control implements StateMachine {

  /** The control's endpoint number. */
  public static final int ID = -1;

  /** How many down-times a node taken out on suspicion waits before it may rejoin. */
  static final int QUARANTINE_DOWNS = 2;

  /** A time long before any tick, whose distance to any tick cannot overflow. */
  static final long NEVER = Long.MIN_VALUE / 4;

  private final Timing timing;
  private final int replicas;
  /** The first table's partition count ({@link Numbering#base}). */
  private final int base;
  /** Where copies belong; null: the core's own rule (round robin, then the least loaded). */
  private Placement placement;
  /** The placement was replaced ({@link #place}): its targets are asked for at the next tick. */
  private boolean placementReplaced;
  /** The placement's targets by partition, as last asked for. */
  private SortedMap<Integer, List<Integer>> targets = new TreeMap<>();
  /** The nodes that were eligible when the targets were asked for. */
  private List<Integer> placedOver = List.of();
  /** The nodes that were leaving when the targets were asked for. */
  private Set<Integer> placedLeaving = Set.of();
  /**
   * The partitions there were when the targets were asked for (splits add some, merges take some
   * away).
   */
  private List<Integer> placedFor = List.of();
  private final TreeMap<Integer, Entry> table = new TreeMap<>();
  private final TreeMap<Integer, NodeState> nodes = new TreeMap<>();
  /** What each node last reported it served as primary, by partition, then node. */
  private final TreeMap<Integer, TreeMap<Integer, Long>> served = new TreeMap<>();
  private final List<Envelope> out = new ArrayList<>();
  private long now;
  private long lastPing = NEVER;
  private long pings;
  private long changes;
  /** Whether the durable state changed since the last record. */
  private boolean durableChanged;
  /** Not ticked yet: nodes are heard from the first tick on, whatever clock the driver has. */
  private boolean awaitingFirstTick = true;
  /** Restored from records: its first tick starts a down-time of grace. */
  private boolean restored;
  /** No configuration changes before this (a restored control's grace). */
  private long decideFrom = NEVER;
  /** Restored: once the grace is over, partitions not known to be level are levelled again. */
  private boolean relevelAfterGrace;
  /** Partitions to level again at a new epoch once their primary is up. */
  private final TreeSet<Integer> relevel = new TreeSet<>();

  /**
   * A table of {@code partitions} partitions over {@code members}, each with {@code replicas}
   * copies placed round robin (fewer when there are fewer members).
   */
  public Control(Timing timing, int partitions, int replicas, List<Integer> members) {
    this(null, timing, firstTable(partitions), replicas, members);
  }

  /**
   * A table numbered as {@code scheme} routes (hash slots, key ranges or a token ring, see {@link
   * Numbering#of}) over {@code members}, each partition with {@code replicas} copies placed round
   * robin (fewer when there are fewer members).
   */
  public Control(Timing timing, PartitionScheme scheme, int replicas, List<Integer> members) {
    this(null, timing, scheme, replicas, members);
  }

  /**
   * A table numbered as {@code scheme} routes over {@code members}, placed by {@code placement},
   * which the control keeps the table moving toward from then on.
   */
  public Control(Timing timing, PartitionScheme scheme, int replicas, List<Integer> members,
      Placement placement) {
    this(Objects.requireNonNull(placement, "placement"), timing, scheme, replicas, members);
  }

  private static PartitionScheme firstTable(int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("need at least one partition: " + partitions);
    }
    return new HashSlots(partitions, KeyHash.MURMUR3_128);
  }

  /**
   * A table of {@code partitions} partitions over {@code members} placed by {@code placement},
   * which the control keeps the table moving toward from then on.
   */
  public Control(Timing timing, int partitions, int replicas, List<Integer> members,
      Placement placement) {
    this(Objects.requireNonNull(placement, "placement"), timing, firstTable(partitions), replicas,
        members);
  }

  private Control(Placement placement, Timing timing, PartitionScheme scheme, int replicas,
      List<Integer> members) {
    int partitions = scheme.partitionCount();
    if (partitions < 1 || replicas < 1 || members.isEmpty()) {
      throw new IllegalArgumentException("need at least one partition, replica and member: "
          + partitions + ", " + replicas + ", " + members);
    }
    this.timing = timing;
    this.replicas = replicas;
    this.base = partitions;
    this.placement = placement;
    for (int n : members) {
      nodes.put(n, new NodeState());
    }
    List<Integer> sorted = new ArrayList<>(nodes.keySet());
    roundRobin(partitions, replicas, sorted).forEach((p, m) ->
        table.put(p, new Entry(1, m, Numbering.of(scheme, p))));
    if (placement != null) {
      aim(sorted);
      targets.forEach((p, m) -> table.get(p).members = m);
    }
    // every copy is empty, so every copy is level
    table.values().forEach(e -> e.level.addAll(e.members));
    durableChanged = true; // the first table, before any configuration of it leaves
  }

  /**
   * The first table of the control's own rule: partition {@code p} on the {@code replicas}
   * members (fewer when there are fewer) from the {@code p}-th of {@code members} on, wrapping
   * around.
   */
  public static SortedMap<Integer, List<Integer>> roundRobin(int partitions, int replicas,
      List<Integer> members) {
    TreeMap<Integer, List<Integer>> table = new TreeMap<>();
    for (int p = 0; p < partitions; p++) {
      List<Integer> m = new ArrayList<>();
      for (int i = 0; i < Math.min(replicas, members.size()); i++) {
        m.add(members.get((p + i) % members.size()));
      }
      table.put(p, m);
    }
    return table;
  }

  private Control(Timing timing, int replicas, int base, Placement placement) {
    this.timing = timing;
    this.replicas = replicas;
    this.base = base;
    this.placement = placement;
  }

  /**
   * A control restarted from a prefix of the records an earlier one produced ({@link
   * #ready}): the last {@link ControlState} among them. A driver whose store holds none starts a
   * control afresh with the constructor instead.
   *
   * @throws IllegalArgumentException when {@code records} hold no control state
   */
  public static Control restore(Timing timing, int replicas, List<Record> records) {
    return restoreWith(timing, replicas, null, records);
  }

  /**
   * A control placing copies by {@code placement} restarted from a prefix of the records an
   * earlier one produced: as {@link #restore(Timing, int, List)}; give it the placement the
   * earlier one had, since the records do not hold it.
   *
   * @throws IllegalArgumentException when {@code records} hold no control state
   */
  public static Control restore(Timing timing, int replicas, Placement placement,
      List<Record> records) {
    return restoreWith(timing, replicas, Objects.requireNonNull(placement, "placement"), records);
  }

  private static Control restoreWith(Timing timing, int replicas, Placement placement,
      List<Record> records) {
    ControlState last = null;
    for (Record r : records) {
      if (r instanceof ControlState s) {
        last = s;
      }
    }
    if (last == null || last.rows().isEmpty()) {
      throw new IllegalArgumentException("no control state to restore among " + records.size()
          + " records: a control whose table was never made durable starts afresh");
    }
    if (last.base() < 1) {
      throw new IllegalArgumentException("the control state to restore numbers keys by a table"
          + " of base " + last.base() + ": a base is the first table's partition count, >= 1");
    }
    Control c = new Control(timing, replicas, last.base(), placement);
    for (int n : last.nodes()) {
      NodeState s = new NodeState();
      s.heard = false;
      s.leaving = last.leaving().contains(n);
      s.incarnation = last.incarnations().getOrDefault(n, 0L);
      c.nodes.put(n, s);
    }
    for (Row row : last.rows()) {
      if (row.members().isEmpty()) {
        throw new IllegalArgumentException("partition " + row.partition()
            + " has no members in the control state to restore");
      }
      Entry e = new Entry(row.epoch(), row.members(), row.numbering());
      e.level.addAll(row.level());
      e.joining.addAll(row.joining());
      e.lost.addAll(row.lost());
      e.parent = row.parent();
      e.splitAt = row.splitAt();
      if (row.move() != null) {
        e.move = new Move(row.move().source(), row.move().target());
        e.move.joined = row.move().joined();
      }
      c.table.put(row.partition(), e);
    }
    c.restored = true;
    return c;
  }

  /** What {@link #restore} rebuilds from: the durable part of this control's state. */
  public ControlState durableState() {
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<Integer, Entry> e : table.entrySet()) {
      Entry t = e.getValue();
      rows.add(new Row(e.getKey(), t.epoch, t.numbering, t.members, t.level, t.joining, t.parent,
          t.splitAt,
          t.move == null ? null
              : new ControlState.Move(t.move.source, t.move.target, t.move.joined), t.lost));
    }
    TreeSet<Integer> leaving = new TreeSet<>();
    nodes.forEach((n, s) -> {
      if (s.leaving) {
        leaving.add(n);
      }
    });
    TreeMap<Integer, Long> incarnations = new TreeMap<>();
    nodes.forEach((n, s) -> {
      if (s.incarnation != 0) {
        incarnations.put(n, s.incarnation);
      }
    });
    return new ControlState(base, rows, new TreeSet<>(nodes.keySet()), leaving, incarnations);
  }

  /** Handles a node's message. */
  @Override
  public void step(Envelope e) {
    Message m = e.message();
    if (m instanceof Pong p) {
      onPong(e.from(), p);
    } else if (m instanceof Suspect s) {
      Entry t = table.get(s.partition());
      if (t != null && t.epoch == s.epoch() && t.primary() == e.from()) {
        t.suspects.addAll(s.suspects());
      }
    } else if (m instanceof Levelled l) {
      Entry t = table.get(l.partition());
      if (t != null && t.epoch == l.epoch() && t.primary() == e.from()) {
        durableChanged |= t.level.addAll(t.members);
        // levelled again: each holds the partition's writes
        durableChanged |= t.lost.removeAll(t.members);
      }
    } else if (m instanceof Drained d) {
      Entry t = table.get(d.partition());
      if (t != null && t.epoch == d.epoch() && t.primary() == e.from()
          && t.drainAskedAt != NEVER && !t.drained) {
        t.drained = true;
        if (now >= decideFrom) {
          // the partition serves nothing until its new primary takes over: at once, not at the
          // next tick
          decide(d.partition(), t);
        }
      }
    }
  }

  /**
   * The clock moved: heartbeats, then at most one change per partition (none during a restored
   * control's first down-time).
   */
  @Override
  public void tick(long nowMillis) {
    now = Math.max(now, nowMillis);
    if (awaitingFirstTick) {
      // it has heard nobody yet: every node gets a full down-time to answer before it may be
      // counted down
      awaitingFirstTick = false;
      for (NodeState s : nodes.values()) {
        s.lastPong = Math.max(s.lastPong, now);
      }
      if (restored) {
        decideFrom = now + timing.downMillis();
        relevelAfterGrace = true;
      }
    }
    if (now - lastPing >= timing.pingMillis()) {
      lastPing = now;
      pings++;
      nodes.forEach((n, s) -> out.add(new Envelope(ID, n,
          new Ping(pings, s.incarnation, s.acknowledged ? List.of() : fences(n)))));
    }
    if (now < decideFrom) {
      return;
    }
    if (relevelAfterGrace) {
      relevelAfterGrace = false;
      table.forEach((p, t) -> {
        if (!t.level.containsAll(t.members)) {
          relevel.add(p);
        }
      });
    }
    if (placement != null) {
      aim(eligible());
    }
    for (Map.Entry<Integer, Entry> e : table.entrySet()) {
      decide(e.getKey(), e.getValue());
    }
  }

  /**
   * The record of the durable state when it changed since the last call, then the messages to
   * send: a configuration leaves only once the record of its epoch is durable.
   */
  @Override
  public Ready ready() {
    if (out.isEmpty() && !durableChanged) {
      return Ready.EMPTY;
    }
    List<Record> records = durableChanged ? List.of(durableState()) : List.of();
    durableChanged = false;
    Ready r = new Ready(records, out);
    out.clear();
    return r;
  }

  // ---- administration

  /** A node joins the cluster: it takes copies as partitions need them and migrations move. */
  public void join(int node) {
    NodeState s = nodes.get(node);
    if (s == null || s.leaving) {
      durableChanged = true;
    }
    if (s == null) {
      s = new NodeState();
      nodes.put(node, s);
    }
    s.leaving = false;
    s.lastPong = now;
  }

  /** A node leaves gracefully: its copies move elsewhere; it takes no new ones. */
  public void leave(int node) {
    NodeState s = nodes.get(node);
    if (s != null && !s.leaving) {
      s.leaving = true;
      durableChanged = true;
    }
  }

  /**
   * Forgets a node that is gone for good (its disk lost or damaged): it is never up again, its
   * copies are replaced, and a fresh node takes its place under a new number.
   */
  public void forget(int node) {
    durableChanged |= nodes.remove(node) != null;
    // It holds nothing any more: should its number join again (a new node in its place), it is
    // no level copy of any partition it is still a member of, so it is never promoted on them.
    for (Entry t : table.values()) {
      durableChanged |= t.level.remove(node);
    }
  }

  /**
   * Moves {@code partition}'s primary copy to {@code target}: it joins as a backup, becomes the
   * primary once level, and the old primary leaves the configuration. Under a {@link Placement}
   * the move runs the same, and the partition then moves back to its target: to move copies for
   * good, change the placement.
   *
   * @return false when the move cannot start (unknown partition or node, a move under way)
   */
  public boolean migrate(int partition, int target) {
    Entry t = table.get(partition);
    NodeState s = nodes.get(target);
    if (t == null || s == null || s.leaving || t.move != null || t.primary() == target) {
      return false;
    }
    t.move = new Move(t.primary(), target);
    durableChanged = true;
    return true;
  }

  /**
   * Splits {@code partition} in two halves of its line at a new epoch: hash halves by one more
   * bit of the keys' hash, spans at their {@link Numbering#midpoint}. See {@link #split(int,
   * Bytes)}.
   *
   * @return the new partition's number, or empty when the split cannot start (unknown partition,
   *     a move under way, a primary that lost its copy, numbers exhausted, a span of one
   *     position)
   */
  public Optional<Integer> split(int partition) {
    Entry t = table.get(partition);
    if (t == null) {
      return Optional.empty();
    }
    if (t.numbering instanceof Numbering.Hashed) {
      return split(partition, null);
    }
    return t.numbering.midpoint(partition).flatMap(cut -> split(partition, cut));
  }

  /**
   * Splits {@code partition} at {@code cut} at a new epoch (null for hash halves; a key for key
   * spans; a token's eight big-endian bytes for token spans, see {@link Numbering#split}): it
   * keeps the keys below the cut and a new partition, numbered {@code partition} plus its old
   * modulus, takes the rest, with the same members.
   *
   * @return the new partition's number, or empty when the split cannot start (unknown partition,
   *     a move under way, a primary that lost its copy, numbers exhausted)
   * @throws IllegalArgumentException when the cut is not strictly inside the partition's range,
   *     or is given to hash halves
   */
  public Optional<Integer> split(int partition, Bytes cut) {
    Entry t = table.get(partition);
    if (t == null || t.move != null || t.lost.contains(t.primary())
        || partition + t.numbering.modulus() > Integer.MAX_VALUE
        || t.numbering.generation() > 0 && !heardAtEpoch(t)) {
      // a merged partition splits only once each member holds it merged: a node that learned
      // of the merge late would otherwise have to merge and split again in one step
      return Optional.empty();
    }
    Numbering split = t.numbering.split(partition, cut);
    int child = (int) (partition + t.numbering.modulus());
    t.numbering = split;
    change(partition, t, t.members);
    Entry c = new Entry(t.epoch, t.members, split);
    // Each level copy of the partition holds the new one's keys and divides them off itself.
    c.level.addAll(t.level);
    c.nameJoining();
    c.parent = partition;
    c.splitAt = t.epoch;
    table.put(child, c);
    durableChanged = true;
    Configure configure = c.configure(child);
    for (int n : c.members) {
      out.add(new Envelope(ID, n, configure));
    }
    return Optional.of(child);
  }

  /**
   * Why {@code partition} cannot merge with its sibling (the other half of the split that made
   * it) now; empty when it can. A merge is committed only when it is safe without moving data
   * between nodes: both halves at the same numbering, not split further, with the same members
   * in the same order (one primary, the same backups), every member up, level in both, heard
   * holding both at their current epochs, none joining, leaving or having lost its copy, and no
   * move or handover under way. This control moves nothing to get there: the reason says what is
   * missing (a placement or a migration brings the copies together first).
   */
  public Optional<String> whyNotMerge(int partition) {
    Entry t = table.get(partition);
    if (t == null) {
      return Optional.of("no partition " + partition + " in the table " + partitionIds());
    }
    long modulus = t.numbering.modulus();
    if (modulus <= t.numbering.base()) {
      return Optional.of("partition " + partition + " is one of the first table's "
          + t.numbering.base() + ": no split made it, so it has no sibling to merge with");
    }
    long half = modulus / 2;
    int keep = (int) (partition % half);
    int gone = (int) (keep + half);
    Entry a = table.get(keep);
    Entry b = table.get(gone);
    String pair = "partitions " + keep + " and " + gone;
    if (a == null || b == null) {
      return Optional.of(pair + ": " + (a == null ? keep : gone) + " is not in the table");
    }
    if (a.numbering.modulus() != modulus || b.numbering.modulus() != modulus) {
      return Optional.of(pair + ": one is split further (modulus " + a.numbering.modulus()
          + " and " + b.numbering.modulus() + "); merge its halves first");
    }
    long generation = Math.max(a.numbering.generation(), b.numbering.generation()) + 1;
    if (!a.numbering.merge(keep, generation).equals(b.numbering.merge(gone, generation))) {
      return Optional.of(pair + " are not the halves of one split: " + a.numbering + " and "
          + b.numbering);
    }
    if (now < decideFrom) {
      return Optional.of("the control was restored and changes nothing before its grace ends");
    }
    if (!a.members.equals(b.members)) {
      return Optional.of(pair + " have other configurations (" + keep + " on " + a.members
          + ", " + gone + " on " + b.members + "): move them onto one primary and the same "
          + "backups first");
    }
    for (int p : List.of(keep, gone)) {
      Entry e = table.get(p);
      String why = e.move != null ? "a move under way"
          : !e.lost.isEmpty() ? "members that lost their copy " + e.lost
          : !e.joining.isEmpty() ? "members joining " + e.joining
          : !e.level.containsAll(e.members) ? "members not level: level " + e.level + " of "
              + e.members
          : relevel.contains(p) ? "a level to make again"
          : e.drainAskedAt != NEVER ? "a handover under way"
          : !heardAtEpoch(e) ? "members not heard holding epoch " + e.epoch + " yet: "
              + e.heardAt
          : null;
      if (why != null) {
        return Optional.of("partition " + p + " has " + why);
      }
    }
    for (int n : a.members) {
      if (!up(n) || nodes.get(n).leaving) {
        return Optional.of(pair + ": member " + n + " is " + (up(n) ? "leaving" : "down"));
      }
    }
    return Optional.empty();
  }

  /**
   * Merges {@code partition} with its sibling at a new epoch when {@link #whyNotMerge} finds
   * nothing against it: the lower of the two, numbered at half the modulus and one generation on,
   * takes the keys of both with the same members, level as they were in both, and the higher
   * leaves the table. Each member combines its two copies by one logged record when the new
   * configuration (or a snapshot of the new numbering) reaches it, and from then on refuses the
   * old numbering of both: the lower's by the new epoch, the higher's by an epoch past its last.
   * The new epoch is past both halves' epochs, so whatever either's old configuration had under
   * way is refused as stale; since the new primary was the primary of both and every member was
   * level in both, every write either half acknowledged is in each member's combined copy.
   *
   * @return the partition that holds the keys of both, or empty when the merge cannot be made now
   *     ({@link #whyNotMerge} says why)
   */
  public Optional<Integer> merge(int partition) {
    if (whyNotMerge(partition).isPresent()) {
      return Optional.empty();
    }
    long half = table.get(partition).numbering.modulus() / 2;
    int keep = (int) (partition % half);
    int gone = (int) (keep + half);
    Entry a = table.get(keep);
    Entry b = table.remove(gone);
    served.remove(gone);
    long generation = Math.max(a.numbering.generation(), b.numbering.generation()) + 1;
    a.numbering = a.numbering.merge(keep, generation);
    a.epoch = Math.max(a.epoch, b.epoch); // change() steps past both
    a.level.retainAll(b.level);
    change(keep, a, a.members);
    return Optional.of(keep);
  }

  /** Whether every member of the partition was last heard holding it at its current epoch. */
  private static boolean heardAtEpoch(Entry t) {
    for (int n : t.members) {
      Long at = t.heardAt.get(n);
      if (at == null || at != t.epoch) {
        return false;
      }
    }
    return true;
  }

  // ---- what clients and observers read

  /** The partition of the current table that holds {@code key}. */
  public int partitionOf(Bytes key) {
    for (Map.Entry<Integer, Entry> e : table.entrySet()) {
      if (e.getValue().numbering.holds(e.getKey(), key)) {
        return e.getKey();
      }
    }
    throw new IllegalStateException("no partition holds " + key + ": the table has a hole");
  }

  /** The partitions' numbers, in order. */
  public List<Integer> partitionIds() {
    return List.copyOf(table.keySet());
  }

  /** The primary of {@code partition} in the current table. */
  public int primary(int partition) {
    return table.get(partition).primary();
  }

  /** The current configuration of {@code partition}. */
  public Configure configuration(int partition) {
    Entry t = table.get(partition);
    return t.configure(partition);
  }

  /** The members of {@code partition} known to hold every acknowledged write. */
  public List<Integer> levelMembers(int partition) {
    return List.copyOf(table.get(partition).level);
  }

  /**
   * The incarnation {@code node} last answered as ({@link Pong}), durable with the control's
   * state; 0 when none was heard. Another one under the same number means its disk was wiped.
   */
  public long incarnation(int node) {
    NodeState s = nodes.get(node);
    return s == null ? 0 : s.incarnation;
  }

  /**
   * Whether {@code node} last answered a heartbeat holding {@code partition} at its current epoch:
   * it took the current configuration (volatile: a restarted control has heard nobody yet).
   */
  public boolean answeredAtEpoch(int partition, int node) {
    Entry t = table.get(partition);
    Long at = t.heardAt.get(node);
    return at != null && at == t.epoch;
  }

  /** Whether a move of {@code partition} is under way. */
  public boolean moving(int partition) {
    return table.get(partition).move != null;
  }

  /** Whether {@code node} answered the last heartbeats. */
  public boolean up(int node) {
    NodeState s = nodes.get(node);
    return s != null && s.heard && now - s.lastPong < timing.downMillis();
  }

  /** The partitions in the table. */
  public int partitions() {
    return table.size();
  }

  /** Configuration changes made so far. */
  public long changes() {
    return changes;
  }

  /**
   * Whether every partition has its full count of members, all level and up, with no move under
   * way: the cluster has recovered.
   */
  public boolean settled() {
    return unsettled().isEmpty();
  }

  /**
   * The first partition that keeps the cluster from being {@link #settled}, described (members,
   * level members, who is down, a move), or empty when settled.
   */
  public Optional<String> unsettled() {
    int want = Math.min(replicas, (int) nodes.values().stream().filter(s -> !s.leaving).count());
    for (Map.Entry<Integer, Entry> e : table.entrySet()) {
      Entry t = e.getValue();
      List<Integer> down = t.members.stream().filter(n -> !up(n) || leaving(n)).toList();
      List<Integer> target = targets.get(e.getKey());
      boolean placed = placement == null || target != null && target.get(0) == t.primary()
          && target.size() == t.members.size() && t.members.containsAll(target);
      if (t.move != null || t.members.size() != want || !t.level.containsAll(t.members)
          || !down.isEmpty() || !placed) {
        return Optional.of("partition " + e.getKey() + " at epoch " + t.epoch + ": members "
            + t.members + ", level " + t.level + ", down or leaving " + down
            + (t.move == null ? "" : ", moving " + t.move.source + " -> " + t.move.target)
            + (placed ? "" : ", placement's target " + target));
      }
    }
    if (placementReplaced) {
      return Optional.of("the placement was replaced: its targets are asked for at the next tick");
    }
    if (placement != null) {
      List<Integer> eligible = eligible();
      if (!eligible.equals(placedOver) || !leavingNodes().equals(placedLeaving)
          || !placedFor.equals(partitionIds())) {
        return Optional.of("the placement's targets are for nodes " + placedOver + " (leaving "
            + placedLeaving + ") and " + placedFor.size() + " partitions, not yet for nodes "
            + eligible + " (leaving " + leavingNodes() + ") and " + table.size() + " partitions");
      }
    }
    return Optional.empty();
  }

  /**
   * Places copies by {@code placement} from now on, in place of the placement the control had or
   * of its own rule. Its targets are asked for at the next tick, and each partition then moves
   * toward its new target by the same safe steps as before (a missing member joins as a backup,
   * the target primary takes over once level, the members outside the target leave last); a
   * migration under way runs to its end first. Like the placement given at the start, it is not
   * in the records: a driver restarting the control gives it the placement it is to have.
   */
  public void place(Placement placement) {
    this.placement = Objects.requireNonNull(placement, "placement");
    placementReplaced = true;
  }

  /**
   * The load view: the requests each node reported it answered as a partition's primary, by
   * partition, then node, each count as last heard (counted since that node started, so one that
   * restarted counts again from zero). A driver samples it over time for rates; nothing here
   * decides by it, and it is not in the records (a restarted control starts with none).
   */
  public SortedMap<Integer, SortedMap<Integer, Long>> served() {
    TreeMap<Integer, SortedMap<Integer, Long>> copy = new TreeMap<>();
    served.forEach((p, byNode) -> copy.put(p, Collections.unmodifiableSortedMap(
        new TreeMap<>(byNode))));
    return Collections.unmodifiableSortedMap(copy);
  }

  /** Nodes of the table that hold partitions, and so cannot lose their data without loss. */
  public Optional<Integer> soleLevelCopy(int node) {
    for (Map.Entry<Integer, Entry> e : table.entrySet()) {
      TreeSet<Integer> others = new TreeSet<>(e.getValue().level);
      others.retainAll(e.getValue().members);
      others.remove(node);
      others.removeIf(n -> !up(n) || leaving(n));
      if (e.getValue().members.contains(node) && others.isEmpty()) {
        return Optional.of(e.getKey());
      }
    }
    return Optional.empty();
  }

  // ---- decisions

  /**
   * At most one change of {@code partition}'s configuration; a drain asked for a planned change
   * that this decision no longer makes (a move rolled back, the targets moved back) is called
   * off, so the primary serves again at once.
   */
  private void decide(int partition, Entry t) {
    long epoch = t.epoch;
    t.handOverWanted = false;
    decideChange(partition, t);
    if (!t.handOverWanted && t.epoch == epoch && t.drainAskedAt != NEVER) {
      out.add(new Envelope(ID, t.primary(), new Resume(partition, t.epoch)));
      t.drainAskedAt = NEVER;
      t.drained = false;
    }
  }

  private void decideChange(int partition, Entry t) {
    int primary = t.primary();
    // the primary answered that it lost the copy it held (onPong): it must not serve it
    boolean lostCopy = t.lost.contains(primary);
    if (relevel.contains(partition) && up(primary) && !lostCopy) {
      // a restored control does not know whether its primary levelled them: a new epoch with
      // the same members makes the primary level them again and report it
      change(partition, t, t.members);
      return;
    }
    // A leaving primary that serves hands over once no member is joining: a copy still arriving
    // from it would refuse the new primary's level by name, and be sent whole again.
    boolean joining = t.members.stream().skip(1).anyMatch(n -> up(n) && !t.level.contains(n));
    if (!up(primary) || lostCopy || leaving(primary) && t.move == null && !joining) {
      List<Integer> levelUp = t.members.stream().skip(1)
          .filter(n -> t.level.contains(n) && up(n)).toList();
      Optional<Integer> next = levelUp.stream().filter(n -> !leaving(n)).findFirst()
          // when the only level copies left are leaving, one serves until the partition is
          // placed elsewhere: the primary may be gone for good, and waiting for it would leave
          // the partition unserved, and never re-replicated, for ever
          .or(() -> up(primary) && !lostCopy ? Optional.empty() : levelUp.stream().findFirst());
      if (next.isPresent()) {
        List<Integer> m = new ArrayList<>();
        m.add(next.get());
        t.members.stream().skip(1).filter(n -> !n.equals(next.get())).forEach(m::add);
        if (up(primary)) {
          m.add(primary); // a leaving primary stays a backup until its replacement is level
        }
        if (lostCopy || mayHandOver(partition, t)) {
          change(partition, t, m);
        }
        return;
      }
    }
    if (lostCopy) {
      // the primary lost its copy and no level backup can take over: any new configuration
      // would have it serve its empty copy as if it held the partition's writes
      return;
    }
    if (!t.suspects.isEmpty()) {
      List<Integer> m = new ArrayList<>(t.members);
      m.removeIf(n -> n != primary && t.suspects.contains(n));
      for (int n : t.members) {
        if (!m.contains(n)) {
          t.suspectedAt.put(n, now);
        }
      }
      t.suspects.clear();
      if (m.size() < t.members.size()) {
        if (t.move != null && !m.contains(t.move.target)) {
          t.move = null; // the target was taken out: the move is rolled back
        }
        change(partition, t, m);
        return;
      }
    }
    // Down backups go while the primary serves; with the primary down too they stay, since a
    // level copy among them is what the partition fails over to once it answers again.
    List<Integer> down = t.members.stream().skip(1).filter(n -> !up(n)).toList();
    if (!down.isEmpty() && t.move == null && up(primary)) {
      List<Integer> m = new ArrayList<>(t.members);
      m.removeAll(down);
      change(partition, t, m);
      return;
    }
    if (t.move != null) {
      Move mv = t.move;
      if (primary != mv.source || mv.joined && !t.members.contains(mv.target)
          || !up(mv.target)) {
        t.move = null;
        durableChanged = true;
        if (t.members.contains(mv.target) && mv.target != primary) {
          List<Integer> m = new ArrayList<>(t.members);
          m.remove(Integer.valueOf(mv.target));
          change(partition, t, m); // roll back: the target leaves again
        }
        return;
      }
      if (!t.members.contains(mv.target)) {
        if (t.level.containsAll(t.members)) {
          List<Integer> m = new ArrayList<>(t.members);
          m.add(mv.target);
          mv.joined = true;
          change(partition, t, m);
        }
        return;
      }
      if (t.level.contains(mv.target) && primary == mv.source) {
        List<Integer> m = new ArrayList<>();
        m.add(mv.target);
        t.members.stream().filter(n -> n != mv.source && n != mv.target).forEach(m::add);
        if (mayHandOver(partition, t)) {
          t.move = null;
          change(partition, t, m); // the cut-over: the source is out, the target serves
        }
        return;
      }
      return;
    }
    if (placement != null) {
      moveTowardTarget(partition, t);
      return;
    }
    List<Integer> leaving =
        t.members.stream().skip(1).filter(n -> leaving(n)).toList();
    if (!leaving.isEmpty()) {
      // A leaving member goes once the partition has its copies without it, all level: a
      // graceful leave never lowers redundancy, the replacement joins first. With no spare to
      // take its place it goes too, but only once the members that stay are level as well.
      long staying = t.members.size() - leaving.size() - (leaving(primary) ? 1 : 0);
      boolean allLevel = t.level.containsAll(t.members);
      boolean replaced = staying >= replicas && allLevel;
      boolean irreplaceable = staying < replicas && leastLoadedSpare(t).isEmpty() && allLevel;
      if (replaced || irreplaceable) {
        List<Integer> m = new ArrayList<>(t.members);
        m.removeAll(leaving);
        change(partition, t, m);
        return;
      }
    }
    long counted = t.members.stream().filter(n -> !leaving(n)).count();
    if (counted > replicas) {
      // more copies than asked (a move's target stayed, say): the last one goes
      List<Integer> m = new ArrayList<>(t.members);
      m.remove(m.size() - 1);
      change(partition, t, m);
      return;
    }
    if (counted < replicas && t.level.containsAll(t.members) && up(primary)) {
      Optional<Integer> spare = leastLoadedSpare(t);
      if (spare.isPresent()) {
        List<Integer> m = new ArrayList<>(t.members);
        m.add(spare.get());
        change(partition, t, m);
      }
    }
  }

  /**
   * One step of {@code partition} toward its target, once its previous change is level and its
   * primary is up: a missing target member joins; then the target primary (level, as every
   * member is) takes over, and the members outside the target leave with that change, all
   * replaced by then; or, with the primary in place, they leave. A handover does not leave them
   * for a change of its own: that change would reach the backups before the new primary's level
   * (its offer names the state the handover began), and every backup that had not taken the
   * handover's level yet would refuse the next one by name and be sent a whole copy again.
   */
  private void moveTowardTarget(int partition, Entry t) {
    List<Integer> target = targets.get(partition);
    int primary = t.primary();
    if (target == null || !up(primary) || !t.level.containsAll(t.members)) {
      return;
    }
    for (int n : target) {
      if (!t.members.contains(n)) {
        List<Integer> m = new ArrayList<>(t.members);
        m.add(n);
        change(partition, t, inTargetOrder(primary, m, target));
        return;
      }
    }
    int wanted = target.get(0);
    if (wanted != primary) {
      if (mayHandOver(partition, t)) {
        change(partition, t, target);
      }
      return;
    }
    if (t.members.size() > target.size()) {
      change(partition, t, target);
    }
  }

  /**
   * {@code members} with {@code primary} first, then the target's members in its order, then the
   * others: a settled partition is its target exactly, which a placement that builds on the
   * table it is given (backups' ranks included) then finds unchanged.
   */
  private static List<Integer> inTargetOrder(int primary, List<Integer> members,
      List<Integer> target) {
    List<Integer> m = new ArrayList<>();
    m.add(primary);
    target.stream().filter(n -> n != primary && members.contains(n)).forEach(m::add);
    members.stream().filter(n -> !m.contains(n)).forEach(m::add);
    return m;
  }

  /** The nodes that may take copies: up, not leaving, quarantined from no partition; ascending. */
  private List<Integer> eligible() {
    TreeSet<Integer> quarantined = new TreeSet<>();
    for (Entry t : table.values()) {
      for (int n : t.suspectedAt.keySet()) {
        if (quarantined(t, n)) {
          quarantined.add(n);
        }
      }
    }
    List<Integer> eligible = new ArrayList<>();
    for (Map.Entry<Integer, NodeState> n : nodes.entrySet()) {
      int id = n.getKey();
      if (!n.getValue().leaving && up(id) && !quarantined.contains(id)) {
        eligible.add(id);
      }
    }
    return eligible;
  }

  /**
   * Asks the placement for the targets again when the eligible nodes or the partitions changed
   * since it was last asked: the members each partition has now are what it builds on.
   *
   * @throws IllegalStateException when the placement's answer is not a target for every
   *     partition of eligible, distinct nodes
   */
  private void aim(List<Integer> eligible) {
    Set<Integer> leaving = leavingNodes();
    if (!placementReplaced && eligible.equals(placedOver) && leaving.equals(placedLeaving)
        && placedFor.equals(partitionIds())) {
      return;
    }
    placementReplaced = false;
    placedOver = List.copyOf(eligible);
    placedLeaving = leaving;
    placedFor = partitionIds();
    targets = new TreeMap<>();
    if (eligible.isEmpty()) {
      return; // nobody to place on: the table waits as it is
    }
    TreeMap<Integer, List<Integer>> members = new TreeMap<>();
    table.forEach((p, t) -> members.put(p, t.members));
    SortedMap<Integer, List<Integer>> placed = placement.place(
        Collections.unmodifiableSortedMap(members), placedOver, leaving, replicas);
    for (int p : table.keySet()) {
      List<Integer> target = placed.get(p);
      // more than replicas is a move joining its new copies before the old ones leave
      if (target == null || target.isEmpty()
          || new TreeSet<>(target).size() != target.size() || !eligible.containsAll(target)) {
        throw new IllegalStateException("the placement's target for partition " + p + " is "
            + target + ": expected 1 to " + eligible.size() + " distinct nodes of " + eligible);
      }
      targets.put(p, List.copyOf(target));
    }
  }

  /**
   * The nodes leaving: a placement may keep the places of target nodes that are neither eligible
   * nor leaving for them ({@link Placement#place(SortedMap, List, Set, int)}).
   */
  private Set<Integer> leavingNodes() {
    TreeSet<Integer> leaving = new TreeSet<>();
    nodes.forEach((n, s) -> {
      if (s.leaving) {
        leaving.add(n);
      }
    });
    return Collections.unmodifiableSet(leaving);
  }

  private boolean leaving(int node) {
    NodeState s = nodes.get(node);
    return s != null && s.leaving;
  }

  private Optional<Integer> leastLoadedSpare(Entry t) {
    Map<Integer, Integer> load = new TreeMap<>();
    for (Entry e : table.values()) {
      for (int n : e.members) {
        load.merge(n, 1, Integer::sum);
      }
    }
    Integer best = null;
    for (Map.Entry<Integer, NodeState> n : nodes.entrySet()) {
      int id = n.getKey();
      if (t.members.contains(id) || n.getValue().leaving || !up(id) || quarantined(t, id)) {
        continue;
      }
      if (best == null || load.getOrDefault(id, 0) < load.getOrDefault(best, 0)) {
        best = id;
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * Whether {@code node} was taken out of this partition on its primary's suspicion too recently
   * to come back: it may answer the control's heartbeats while the primary cannot reach it (a
   * one-way cut), and adding it again at once would stall the partition on it once more.
   */
  private boolean quarantined(Entry t, int node) {
    Long at = t.suspectedAt.get(node);
    return at != null && now - at < QUARANTINE_DOWNS * timing.downMillis();
  }

  /**
   * Whether a planned change of {@code partition}'s primary may go ahead: once its primary, asked
   * to {@link Drain} the partition first, answers (the change is then decided at once, {@link
   * #step}), or a resend interval after asking without an answer (the request or the answer lost,
   * the primary no longer serving: nothing is lost then either, the old primary's round in flight
   * is only left unknown), or at once when the primary is down.
   */
  private boolean mayHandOver(int partition, Entry t) {
    t.handOverWanted = true;
    if (t.drained || !up(t.primary())) {
      return true;
    }
    if (t.drainAskedAt == NEVER) {
      t.drainAskedAt = now;
      out.add(new Envelope(ID, t.primary(), new Drain(partition, t.epoch)));
      return false;
    }
    return now - t.drainAskedAt >= timing.resendMillis();
  }

  private void change(int partition, Entry t, List<Integer> members) {
    List<Integer> before = t.members;
    t.epoch++;
    changes++;
    durableChanged = true;
    relevel.remove(partition); // its primary levels the new epoch and reports it
    t.members = List.copyOf(members);
    t.level.retainAll(t.members);
    t.nameJoining();
    // a node that leaves the configuration holds nothing of it from then on
    t.heardHolding.retainAll(t.members);
    t.lost.retainAll(t.members);
    t.suspects.clear();
    t.drainAskedAt = NEVER;
    t.drained = false;
    Configure c = t.configure(partition);
    TreeSet<Integer> told = new TreeSet<>(before);
    told.addAll(t.members);
    for (int n : told) {
      out.add(new Envelope(ID, n, c));
    }
  }

  /**
   * Every partition's current configuration, for a node to take before it answers replica
   * traffic ({@link Ping#fences}); for a copy it lost as primary, the epoch alone.
   */
  private List<Configure> fences(int node) {
    List<Configure> fences = new ArrayList<>(table.size());
    table.forEach((p, t) -> {
      if (t.primary() == node && t.lost.contains(node)) {
        // the epoch alone, with the node in no role: it must not serve the copy it lost, and
        // the next tick hands the partition to a level backup at a newer epoch anyway
        fences.add(new Configure(p, t.epoch, ID, List.of(), t.numbering));
      } else {
        fences.add(t.configure(p));
      }
    });
    return fences;
  }

  private void onPong(int node, Pong p) {
    NodeState s = nodes.get(node);
    if (s == null) {
      return;
    }
    s.acknowledged = p.acknowledged() && p.incarnation() == s.incarnation;
    if (p.incarnation() != 0 && p.incarnation() != s.incarnation) {
      if (s.incarnation != 0) {
        // Another incarnation under the node's number: its disk was wiped. Whatever it held as
        // the one before is gone, though it may answer before anyone finds it down: it is no
        // longer level anywhere, and never serves again what it was primary of. It takes no
        // configuration until a heartbeat names its new incarnation, which leaves only once
        // this is durable.
        for (Map.Entry<Integer, Entry> e : table.entrySet()) {
          Entry t = e.getValue();
          if (t.members.contains(node)) {
            durableChanged |= t.level.remove(node);
            t.heardHolding.remove(node);
            durableChanged |= t.lost.add(node);
            relevel.add(e.getKey());
          }
        }
      }
      s.incarnation = p.incarnation();
      durableChanged = true;
    }
    s.lastPong = now;
    s.heard = true;
    p.served().forEach((partition, count) ->
        served.computeIfAbsent(partition, x -> new TreeMap<>()).put(node, count));
    for (Map.Entry<Integer, Entry> e : table.entrySet()) {
      Entry t = e.getValue();
      Long held = p.held().get(e.getKey());
      boolean member = t.members.contains(node);
      Long parentHeld = t.parent < 0 ? null : p.held().get(t.parent);
      if (held == null && parentHeld != null && parentHeld < t.splitAt) {
        // it has not heard of the split yet: its copy of the parent holds this partition's keys
        held = 0L;
      }
      if (member && held != null) {
        t.heardHolding.add(node);
        t.heardAt.put(node, held);
      } else {
        t.heardAt.remove(node);
      }
      if (member && held == null) {
        // it lost its copy (a wiped or damaged disk), or never had one
        durableChanged |= t.level.remove(node);
        if (t.heardHolding.remove(node)) {
          durableChanged |= t.lost.add(node); // it held the partition, and no longer does
          // its primary levels it again, but reports a level only for a new epoch: give it one
          relevel.add(e.getKey());
        }
      }
      if (member && t.lost.contains(node) && t.primary() == node) {
        // configured again, it would serve its empty copy as if it held the partition's writes:
        // the next tick hands the partition to a level backup instead (decide)
        continue;
      }
      if (member && (held == null || held < t.epoch) || !member && held != null) {
        out.add(new Envelope(ID, node, t.configure(e.getKey())));
      }
    }
  }

  /** One partition's row. */
  private static final class Entry {
    long epoch;
    /** Which keys the partition holds. */
    Numbering numbering;
    /** The partition this one was split off from, or -1. */
    int parent = -1;
    /** The epoch of that split: a node below it there has not divided its copy yet. */
    long splitAt;
    List<Integer> members;
    final TreeSet<Integer> level = new TreeSet<>();
    final TreeSet<Integer> suspects = new TreeSet<>();
    /** Members this control heard holding the partition (volatile: a restart hears afresh). */
    final TreeSet<Integer> heardHolding = new TreeSet<>();
    /** The epoch each member last said it holds the partition at (volatile). */
    final TreeMap<Integer, Long> heardAt = new TreeMap<>();
    /**
     * Members heard holding the partition that then answered without it (their disk wiped or
     * damaged under them), until levelled again (volatile). None of them is level.
     */
    final TreeSet<Integer> lost = new TreeSet<>();
    /** When each node was last taken out on suspicion. */
    final TreeMap<Integer, Long> suspectedAt = new TreeMap<>();
    /**
     * The backups of this epoch's configuration it did not know to be level when it made it (its
     * primary copies them while serving): kept, so that an epoch's configuration is the same
     * whoever sends it again.
     */
    final TreeSet<Integer> joining = new TreeSet<>();
    Move move;
    /** When this epoch's primary was asked to {@link Drain} (volatile); NEVER: not asked. */
    long drainAskedAt = NEVER;
    /** This epoch's primary answered {@link Drained} (volatile). */
    boolean drained;
    /** The decision being made wants a planned change of primary ({@link #decide}). */
    boolean handOverWanted;

    Entry(long epoch, List<Integer> members, Numbering numbering) {
      this.epoch = epoch;
      this.members = List.copyOf(members);
      this.numbering = numbering;
    }

    int primary() {
      return members.get(0);
    }

    /** Names the backups not known to be level as this epoch's joining. */
    void nameJoining() {
      joining.clear();
      members.stream().skip(1).filter(n -> !level.contains(n)).forEach(joining::add);
    }

    /** Its configuration. */
    Configure configure(int partition) {
      return new Configure(partition, epoch, primary(), members.subList(1, members.size()),
          numbering, joining);
    }
  }

  /** A live migration of a partition's primary copy. */
  private static final class Move {
    final int source;
    final int target;
    boolean joined;

    Move(int source, int target) {
      this.source = source;
      this.target = target;
    }
  }

  /** What the control knows of a node. */
  private static final class NodeState {
    long lastPong;
    /** The incarnation it answered as last ({@link Pong}); durable; 0: none heard. */
    long incarnation;
    /** Its last answer said it was named that incarnation and took its fences (volatile). */
    boolean acknowledged;
    /** Whether it answered this control: a restored one knows nothing of who is up. */
    boolean heard = true;
    boolean leaving;
  }
}
