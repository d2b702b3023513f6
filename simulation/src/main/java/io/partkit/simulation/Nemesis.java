package io.partkit.simulation;

import io.partkit.harness.nemesis.Grudges;
import io.partkit.replica.Bytes;
import io.partkit.replica.Control;
import io.partkit.replica.Numbering;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Strikes the seed's planned faults and heals them, recording each in the history as verify's
 * nemesis does. A fault that cannot strike when its time comes (pausing a node that is down,
 * losing the last level copy of a partition) is skipped and not counted: the nemesis never
 * destroys what no protocol could keep, as Jepsen never destroys every replica.
 */
final class Nemesis {

  /** Splits stop once the table has this many times its first partitions. */
  static final int MAX_SPLIT_FACTOR = 4;

  private static final String[] SHAPES = {"halves", "isolate", "bridge", "majorities-ring"};

  private final SimulationSpec spec;
  private final VirtualTime time;
  private final SimNetwork network;
  private final SimCluster cluster;
  private final SimHistory history;
  /** The workload's keys so far: a split of key ranges cuts at one its partition holds. */
  private final Supplier<List<Long>> keys;
  /**
   * Nodes wiped or cut short whose new incarnation the control has not heard yet, with the one it
   * knew at the fault: until it hears a new one, it still counts their copies level (a node cut
   * short that keeps its incarnation stays here, and no further wipe or cut of its partitions
   * strikes).
   */
  private final Map<Integer, Long> wiped = new java.util.HashMap<>();
  private int struck;
  private boolean over;

  Nemesis(SimulationSpec spec, VirtualTime time, SimNetwork network, SimCluster cluster,
      SimHistory history, Supplier<List<Long>> keys) {
    this.spec = spec;
    this.keys = keys;
    this.time = time;
    this.network = network;
    this.cluster = cluster;
    this.history = history;
  }

  /** Schedules every fault of {@code plan} that starts before {@code end}. */
  void plan(List<Fault> plan, long end) {
    for (Fault f : plan) {
      if (f.at() < end) {
        time.schedule(f.at(), () -> strike(f));
      }
    }
  }

  /** Faults that struck. */
  int struck() {
    return struck;
  }

  private void strike(Fault f) {
    if (over) {
      return;
    }
    String what = describe(f);
    if (what != null) {
      struck++;
      history.nemesis(OpType.INFO, f.kind().label(), what);
    }
  }

  /** Strikes {@code f}: what it did, or null when it could not strike. */
  private String describe(Fault f) {
    SimNode n = cluster.pick(f.target());
    Control control = cluster.control();
    if (!cluster.controlUp() && asksTheControl(f.kind())) {
      return null; // nobody takes an operator's request, nor judges what is safe to destroy
    }
    switch (f.kind()) {
      case CONTROL_RESTART: {
        Runnable restartLater = () -> time.schedule(f.duration(), () -> {
          if (!over) {
            cluster.restartControl();
          }
        });
        return switch (f.other()) {
          case 0 -> {
            cluster.crashControl();
            restartLater.run();
            yield "the control";
          }
          case 1 -> cluster.crashControlAtNextWrite(restartLater)
              ? "the control, at its next write" : null;
          case 2 -> cluster.crashControlMidChange(restartLater)
              ? "the control, once a member is joining" : null;
          default -> switch (cluster.takeOverControl(f.duration())) {
            case RUNS_ON -> "the control, taken over by a standby while it runs on, deposed,"
                + " for up to " + f.duration() + " ms";
            case MID_WRITE -> "the control, taken over by a standby mid-write";
            case REFUSED -> null;
          };
        };
      }
      case PARTITION:
        return partition(f);
      case ONE_WAY: {
        SimNode other = cluster.pick(f.other());
        if (other == n) {
          return null;
        }
        network.cut(other.id, n.id);
        time.schedule(f.duration(), () -> network.restore(other.id, n.id));
        return "node " + n.id + " stops hearing node " + other.id;
      }
      case CONTROL_CUT:
        network.cut(n.id, Control.ID);
        network.cut(Control.ID, n.id);
        time.schedule(f.duration(), () -> {
          network.restore(n.id, Control.ID);
          network.restore(Control.ID, n.id);
        });
        return "node " + n.id + " and the control";
      case PAUSE:
        if (!n.up() || n.paused) {
          return null;
        }
        n.paused = true;
        time.schedule(f.duration(), n::resume);
        return "node " + n.id;
      case KILL:
      case POWER_LOSS:
      case DISK_FULL:
        if (!n.up()) {
          return null;
        }
        if (f.kind() == Fault.Kind.DISK_FULL) {
          n.diskFull = true;
        } else {
          n.crash(f.kind() == Fault.Kind.KILL);
        }
        time.schedule(f.duration(), () -> restart(n));
        return "node " + n.id;
      case POWER_LOSS_GROUP: {
        int p = Math.floorMod(f.target(), spec.partitions());
        List<Integer> members = control.configuration(p).members();
        for (int id : members) {
          SimNode m = cluster.node(id);
          if (m != null) {
            m.crash(false);
            time.schedule(f.duration(), () -> restart(m));
          }
        }
        return "nodes " + members + " (partition " + p + ")";
      }
      case WIPE:
        if (!downToLoseItsDisk(n, control, f)) {
          return null; // a wipe of a copy whose partition is short of level copies loses it
        }
        n.wipe();
        return "node " + n.id;
      case TRUNCATE: {
        if (!downToLoseItsDisk(n, control, f)) {
          return null; // as a wipe: what the cut takes may be a partition's last level copy
        }
        int before = n.durableRecords().size();
        if (before < 2) {
          return "node " + n.id + " (its log of " + before + " records too short to cut)";
        }
        int kept = 1 + Math.floorMod(f.other(), before - 1);
        n.truncate(kept);
        return "node " + n.id + " log cut from " + before + " records to " + kept;
      }
      case CORRUPT: {
        if (!n.up() || lastLevelCopy(control, n.id)) {
          return null;
        }
        n.crash(true);
        boolean damaged = n.damageLastValue();
        int index = n.damagedRecord();
        // restarted at once, so that nothing changes between the check above and the
        // detection: the node is never the last level copy when it stops for good
        restart(n);
        return "node " + n.id + (damaged ? " record " + index : " (no record to damage)");
      }
      case JOIN: {
        SimNode fresh = cluster.join();
        int p = Math.floorMod(f.other(), spec.partitions());
        if (spec.targeted()) {
          return "node " + fresh.id + ", " + cluster.retarget(p, fresh.id);
        }
        control.migrate(p, fresh.id);
        return "node " + fresh.id + ", partition " + p + " moves to it";
      }
      case LEAVE:
        if (cluster.live().size() <= spec.replicas() + 1 || !n.up()) {
          return null;
        }
        cluster.leave(n);
        return "node " + n.id;
      case LOSE:
        if (lastLevelCopy(control, n.id)) {
          return null;
        }
        cluster.lose(n);
        return "node " + n.id;
      case SPLIT: {
        List<Integer> ids = control.partitionIds();
        if (ids.size() >= MAX_SPLIT_FACTOR * spec.partitions()) {
          return null;
        }
        int p = ids.get(Math.floorMod(f.target(), ids.size()));
        Numbering numbering = control.configuration(p).numbering();
        if (!(numbering instanceof Numbering.KeySpans)) {
          return control.split(p).map(q -> "partition " + p + " into " + p + " and " + q)
              .orElse(null);
        }
        // at a key it holds other than its first, so both halves hold keys when it can
        List<Bytes> held = keys.get().stream().map(Bytes::ofLong)
            .filter(k -> numbering.holds(p, k)).sorted().toList();
        Optional<Bytes> cut = held.size() < 2 ? numbering.midpoint(p)
            : Optional.of(held.get(1 + Math.floorMod(f.other(), held.size() - 1)));
        return cut.flatMap(c -> control.split(p, c).map(q -> "partition " + p + " into " + p
            + " and " + q + " at " + c)).orElse(null);
      }
      case MERGE: {
        // the higher half of each pair the control would merge now
        List<Integer> pairs = control.partitionIds().stream()
            .filter(p -> p >= control.configuration(p).numbering().modulus() / 2
                && p >= spec.partitions() && control.whyNotMerge(p).isEmpty()).toList();
        if (pairs.isEmpty()) {
          return null;
        }
        int q = pairs.get(Math.floorMod(f.target(), pairs.size()));
        return control.merge(q).map(p -> "partitions " + p + " and " + q + " into " + p)
            .orElse(null);
      }
      case MIGRATE: {
        int p = Math.floorMod(f.other(), spec.partitions());
        if (spec.targeted()) {
          return cluster.retarget(p, n.id);
        }
        return control.migrate(p, n.id) ? "partition " + p + " to node " + n.id : null;
      }
      default:
        throw new IllegalStateException("no such fault: " + f.kind());
    }
  }

  /**
   * Whether a fault of this kind needs the control up: an operator's request to it, a loss it
   * must judge safe first, or its own crash.
   */
  /**
   * Crashes {@code n} as a power loss, to be restarted after the fault's duration, when what its
   * disk holds may be lost: every partition it is a member of has other level copies, none of
   * them on a node wiped unheard. The node's disk then counts as wiped until the control hears
   * its next incarnation. False, with nothing done, otherwise.
   */
  private boolean downToLoseItsDisk(SimNode n, Control control, Fault f) {
    if (!n.up() || !wholeEverywhere(control, n.id, unheardWipes(control))) {
      return false;
    }
    wiped.put(n.id, control.incarnation(n.id));
    n.crash(false);
    time.schedule(f.duration(), () -> restart(n));
    return true;
  }

  /**
   * Whether every partition {@code node} is a member of has all its members level, as the
   * control knows and none of them wiped unheard: wiping one then leaves level copies of each,
   * however soon another fault follows.
   */
  private static boolean wholeEverywhere(Control control, int node, Set<Integer> unheard) {
    for (int p : control.partitionIds()) {
      List<Integer> members = control.configuration(p).members();
      if (members.contains(node) && (members.size() < 2
          || !control.levelMembers(p).containsAll(members)
          || members.stream().anyMatch(unheard::contains))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code node} may hold the last level copy of a partition: the control's own answer
   * ({@link Control#soleLevelCopy}), or, with wiped nodes it has not heard again, the level
   * members it counts other than those.
   */
  private boolean lastLevelCopy(Control control, int node) {
    if (control.soleLevelCopy(node).isPresent()) {
      return true;
    }
    Set<Integer> unheard = unheardWipes(control);
    if (unheard.isEmpty()) {
      return false;
    }
    for (int p : control.partitionIds()) {
      List<Integer> members = control.configuration(p).members();
      if (members.contains(node) && control.levelMembers(p).stream()
          .noneMatch(m -> m != node && members.contains(m) && !unheard.contains(m))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The wiped nodes whose new incarnation the control has not heard: it still counts what their
   * disks held before. One it has heard is forgotten here, the control having counted its copies
   * lost.
   */
  private Set<Integer> unheardWipes(Control control) {
    wiped.entrySet().removeIf(e -> control.incarnation(e.getKey()) != e.getValue());
    return Set.copyOf(wiped.keySet());
  }

  private static boolean asksTheControl(Fault.Kind kind) {
    return switch (kind) {
      case JOIN, LEAVE, LOSE, CORRUPT, MIGRATE, SPLIT, CONTROL_RESTART, WIPE, TRUNCATE, MERGE ->
          true;
      default -> false;
    };
  }

  /** Cuts the grudge of one of verify's shapes over the live nodes and the control. */
  private String partition(Fault f) {
    String shape = SHAPES[Math.floorMod(f.other(), SHAPES.length)];
    List<String> names = new ArrayList<>();
    for (SimNode n : cluster.live()) {
      names.add(Integer.toString(n.id));
    }
    names.add(Integer.toString(Control.ID));
    Collections.shuffle(names, new Random(f.target()));
    Map<String, Set<String>> grudge = Grudges.of(shape, names);
    List<int[]> cut = new ArrayList<>();
    grudge.forEach((to, froms) -> {
      for (String from : froms) {
        int a = Integer.parseInt(from);
        int b = Integer.parseInt(to);
        if (network.cut(a, b)) {
          cut.add(new int[] {a, b});
        }
      }
    });
    time.schedule(f.duration(), () -> cut.forEach(l -> network.restore(l[0], l[1])));
    return shape + " " + grudge;
  }

  /** Starts a node again; one that finds a damaged record stops for good and is replaced. */
  private void restart(SimNode n) {
    boolean down = !n.up() && !n.gone;
    if (!n.restart()) {
      history.nemesis(OpType.INFO, "fail-stop", "node " + n.id + " found a damaged record at "
          + n.damagedRecord() + " and stopped");
      cluster.lose(n);
    } else if (down && n.startedShort() != null) {
      history.nemesis(OpType.INFO, "log-short", "node " + n.id + ": "
          + n.startedShort().missing() + "; set aside, it started empty");
    }
  }

  /** Every fault undone: links restored, the network calm, nodes resumed and restarted. */
  void heal() {
    over = true;
    network.calm();
    cluster.restartControl();
    for (SimNode n : cluster.live()) {
      n.resume();
      n.diskFull = false;
      restart(n);
    }
    history.nemesis(OpType.INFO, "heal", "every fault undone");
  }
}
