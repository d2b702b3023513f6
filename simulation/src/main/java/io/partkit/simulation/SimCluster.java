package io.partkit.simulation;

import io.partkit.replica.Control;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Placement;
import io.partkit.replica.Replica;
import io.partkit.replica.Record.ControlState;
import io.partkit.replica.TargetPlacement;
import io.partkit.replica.Timing;
import io.partkit.replica.mutants.Mutant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The nodes and the control, and where each message goes: to a node's driver, to the control,
 * or back to a client. The planted bugs that answer or fake a message around the unchanged core
 * and control live here, in the drivers, never in them.
 */
final class SimCluster {

  private final SimulationSpec spec;
  private final VirtualTime time;
  private final Random random;
  private final SimNetwork network;
  private final Timing timing = Timing.DEFAULT;
  private final Mutant mutant;
  private final SimControl control;
  private final TreeMap<Integer, SimNode> nodes = new TreeMap<>();
  /**
   * The operator's word on membership: the nodes it joined and has not forgotten, and those it
   * asked to leave. A request the control had not made durable when it crashed is lost with it,
   * so the operator tells a restarted control again what it does not know yet, as a real
   * operator retries a request that was never acknowledged.
   */
  private final TreeSet<Integer> joined = new TreeSet<>();
  private final TreeSet<Integer> leaving = new TreeSet<>();
  private int nextNode;
  /** With {@code strategy=targets}: the targets a coordinator handed the control last. */
  private TargetPlacement targets;
  private Consumer<Envelope> clients = e -> { };

  /** {@code store} draws the control's store's delays, {@code random} everything else. */
  SimCluster(SimulationSpec spec, VirtualTime time, Random random, Random store,
      SimNetwork network) {
    this.spec = spec;
    this.time = time;
    this.random = random;
    this.network = network;
    this.mutant = spec.mutant().orElse(null);
    List<Integer> members = new ArrayList<>();
    for (int i = 0; i < spec.nodes(); i++) {
      members.add(i);
    }
    if (spec.targeted()) {
      targets = TargetPlacement.of(Control.roundRobin(spec.partitions(), spec.replicas(),
          members));
    }
    // a restarted control is given the placement there is then: a coordinator hands it the
    // targets as they stand
    Optional<Placement> strategy = spec.placement();
    Supplier<Optional<Placement>> placement = spec.targeted()
        ? () -> Optional.of(targets) : () -> strategy;
    this.control = new SimControl(time, store, network, mutant,
        () -> placement.get().map(p -> new Control(timing, spec.scheme(), spec.replicas(),
            members, p)).orElseGet(() -> new Control(timing, spec.scheme(), spec.replicas(),
            members)),
        records -> placement.get().map(p -> Control.restore(timing, spec.replicas(), p, records))
            .orElseGet(() -> Control.restore(timing, spec.replicas(), records)),
        this::controlSent);
    for (int n : members) {
      add(n).start();
    }
    joined.addAll(members);
    nextNode = spec.nodes();
    network.deliverTo(this::deliver);
  }

  /**
   * A coordinator's new table, with {@code strategy=targets}: {@code node} becomes the target
   * primary of {@code partition}, followed by the partition's other target members (the last
   * dropped to keep the count), and the running control is handed it.
   *
   * @return what changed, for the history
   */
  String retarget(int partition, int node) {
    TreeMap<Integer, List<Integer>> next = new TreeMap<>(targets.targets());
    List<Integer> row = new ArrayList<>();
    row.add(node);
    for (int n : next.getOrDefault(partition, List.of())) {
      if (n != node && row.size() < spec.replicas()) {
        row.add(n);
      }
    }
    next.put(partition, row);
    targets = TargetPlacement.of(next);
    control.control().place(targets);
    return "partition " + partition + " targeted to " + row;
  }

  /** Where replies to clients go. */
  void repliesTo(Consumer<Envelope> clients) {
    this.clients = clients;
  }

  private SimNode add(int id) {
    SimNode n = new SimNode(id, time, random, network, timing, mutant);
    nodes.put(id, n);
    return n;
  }

  /** Starts the control's ticks. */
  void start() {
    control.start();
  }

  /**
   * The control: the running one, or while it is down the table its store holds (what clients
   * and operators read meanwhile).
   */
  Control control() {
    return control.control();
  }

  /** Whether the control is up. */
  boolean controlUp() {
    return control.up();
  }

  /** The control crashes; messages to it are lost until {@link #restartControl}. */
  void crashControl() {
    control.crash();
  }

  /**
   * Arms the control's crash at its next write ({@link SimControl#crashAtNextWrite}); false if it
   * is down or already armed.
   */
  boolean crashControlAtNextWrite(Runnable then) {
    return control.crashAtNextWrite(then);
  }

  /**
   * Arms the control's crash once its store holds a member not yet level ({@link
   * SimControl#crashMidChange}); false if it is down or already armed.
   */
  boolean crashControlMidChange(Runnable then) {
    return control.crashMidChange(then);
  }

  /**
   * The control starts again from its store, and hears again the operator's membership requests
   * that were lost with it; an armed crash is disarmed.
   */
  void restartControl() {
    boolean wasDown = !control.up();
    control.restart();
    if (wasDown) {
      retellOperatorRequests();
    }
  }

  /**
   * A standby takes over from the running control ({@link SimControl#takeover}), which runs on,
   * deposed, for {@code lifeMillis} at most; the successor hears the operator's requests it does
   * not know.
   */
  SimControl.Takeover takeOverControl(long lifeMillis) {
    SimControl.Takeover t = control.takeover(lifeMillis);
    if (t != SimControl.Takeover.REFUSED) {
      retellOperatorRequests();
    }
    return t;
  }

  /** Tells a control just started the membership requests its store did not keep. */
  private void retellOperatorRequests() {
    ControlState known = control().durableState();
    for (int n : known.nodes()) {
      if (!joined.contains(n)) {
        control().forget(n);
      }
    }
    for (int n : joined) {
      if (!known.nodes().contains(n)) {
        control().join(n);
      }
    }
    for (int n : leaving) {
      if (!known.leaving().contains(n)) {
        control().leave(n);
      }
    }
  }

  private void controlSent(Envelope e) {
    if (e.message() instanceof Configure c && e.to() == c.primary()
        && (mutant == Mutant.CUTOVER_BEFORE_CAUGHT_UP) == c.members().size() > spec.replicas()
        && (mutant == Mutant.CUTOVER_BEFORE_CAUGHT_UP || mutant == Mutant.LEVEL_ON_CONFIGURE)) {
      // the planted bug: a migration's join for the one, any other configuration for the
      // other, counts as level at once
      control().step(new Envelope(c.primary(), Control.ID, new Levelled(c.partition(),
          c.epoch())));
    }
  }

  private void deliver(Envelope e) {
    if (e.to() >= SimNetwork.CLIENT_BASE) {
      clients.accept(e);
      return;
    }
    if (e.to() == Control.ID) {
      control.receive(e);
      return;
    }
    SimNode n = nodes.get(e.to());
    if (n != null) {
      n.receive(e);
    }
  }

  SimNode node(int id) {
    return nodes.get(id);
  }

  /** Every node not lost for good, by number. */
  List<SimNode> live() {
    return nodes.values().stream().filter(n -> !n.gone).toList();
  }

  /** The live node {@code index} names, modulo their count. */
  SimNode pick(int index) {
    List<SimNode> l = live();
    return l.get(Math.floorMod(index, l.size()));
  }

  /** A fresh node joins the cluster; its number is returned. */
  SimNode join() {
    SimNode fresh = add(nextNode++);
    fresh.start();
    joined.add(fresh.id);
    control().join(fresh.id);
    return fresh;
  }

  /** The node leaves gracefully, at the operator's request. */
  void leave(SimNode n) {
    leaving.add(n.id);
    control().leave(n.id);
  }

  /**
   * The node and its disk are gone for good; a fresh node takes its place, once the control is up
   * to be told. With {@code strategy=targets} the fresh node takes its places in the targets too,
   * as a coordinator's rebalance would: the control keeps a forgotten node's places for the
   * targets' owner to fill.
   */
  void lose(SimNode n) {
    n.crash(false);
    n.gone = true;
    control.whenUp(() -> {
      joined.remove(n.id);
      leaving.remove(n.id);
      control().forget(n.id);
      SimNode fresh = join();
      if (targets != null) {
        TreeMap<Integer, List<Integer>> next = new TreeMap<>();
        targets.targets().forEach((p, row) -> next.put(p,
            row.stream().map(m -> m == n.id ? fresh.id : m).toList()));
        targets = TargetPlacement.of(next);
        control().place(targets);
      }
    });
  }

  /** Each node's state, for a seed that did not recover. */
  /**
   * Two running copies whose states have one name and one seq ({@link Replica#stateName}) yet
   * hold different data, described; empty when there are none. Copies of one level at one write
   * took the same writes in the same order from the same state: any difference is a protocol
   * bug, whether or not a client would ever read it.
   */
  Optional<String> divergedCopies() {
    java.util.HashMap<CopyState, SimNode> first = new java.util.HashMap<>();
    for (SimNode n : nodes.values()) {
      if (!n.up()) {
        continue;
      }
      for (int p : n.core.partitions()) {
        Replica.StateName name = n.core.stateName(p);
        if (name.epoch() == 0) {
          continue;
        }
        CopyState at = new CopyState(p, name, n.core.seq(p));
        SimNode other = first.putIfAbsent(at, n);
        if (other != null && !other.core.localData(p).equals(n.core.localData(p))) {
          return Optional.of("copies diverged: partition " + p + " at level " + name.level()
              + " of epoch " + name.epoch() + ", write " + at.seq() + ", on nodes " + other.id
              + " and " + n.id + ": " + other.core.localData(p) + " against "
              + n.core.localData(p));
        }
      }
    }
    return Optional.empty();
  }

  /** A copy's partition, its state's name and the write it is at. */
  private record CopyState(int partition, Replica.StateName name, long seq) {}

  String describe() {
    StringBuilder sb = new StringBuilder();
    for (SimNode n : nodes.values()) {
      sb.append(" [").append(n).append(" up-for-control=").append(control().up(n.id))
          .append(']');
    }
    return sb.append(" control-up=").append(control.up()).toString();
  }
}
