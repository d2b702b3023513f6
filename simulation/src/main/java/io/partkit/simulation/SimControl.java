package io.partkit.simulation;

import io.partkit.replica.Control;
import io.partkit.replica.Envelope;
import io.partkit.replica.Ready;
import io.partkit.replica.Record;
import io.partkit.replica.Record.ControlState;
import io.partkit.replica.mutants.Mutant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The simulator's driver of the control: it ticks the unchanged {@link Control}, writes the
 * records of each {@link Ready} to a simulated store, the stand-in for the coordinator's
 * linearizable store (a write is durable 1-8 ms after it is made and covers every write before
 * it, as a node's disk sync), and sends its messages only once the records before them are
 * durable. A crash loses the control's volatile state and every write not yet durable; while it
 * is down, messages to it are lost. It restarts from the store ({@link Control#restore}), or
 * afresh when the store holds nothing.
 *
 * <p>A takeover ({@link #takeover}) is what a standby's election does to a control that is still
 * running (paused, or cut off from the store): a successor restores from the store and fences it
 * there, and the deposed control runs on for a while unaware. It hears what the nodes send the
 * control and sends what needs nothing new made durable (pings, configurations again); its next
 * write fails the store's compare-and-set, and it stops. A write it had in flight is lost.
 */
final class SimControl {

  /** What a {@link #takeover} did. */
  enum Takeover {
    /** Nothing: the control is down, a crash is armed, or a deposed control still runs. */
    REFUSED,
    /** The control was writing: the write is fenced, and it sends nothing more. */
    MID_WRITE,
    /** The control runs on, deposed, until its next write or the end of its life. */
    RUNS_ON
  }

  private final VirtualTime time;
  private final Random random;
  private final SimNetwork network;
  private final Mutant mutant;
  private final Supplier<Control> fresh;
  private final Function<List<Record>, Control> restore;
  private final Consumer<Envelope> sent;
  /** The running control; while down, the control the store's records give, never ticked. */
  private Control control;
  private boolean up = true;
  /** Bumped at every crash and start, so that events of an earlier life do nothing. */
  private int incarnation;
  private final SimLog store;
  /** What waits for the control to be up again (an operator's request to it). */
  private final List<Runnable> whenUp = new ArrayList<>();
  /** Armed: the control crashes as it makes its next write, and this runs then. */
  private Runnable crashAtNextWrite;
  /** Armed: the control crashes once its store holds a member not yet level, and this runs then. */
  private Runnable crashMidChange;
  /** A control a takeover deposed that has not stopped yet; null when there is none. */
  private Control deposed;
  /** Under {@link Mutant#TAKEOVER_WITHOUT_FENCE}: the store as the deposed control writes it. */
  private SimLog deposedStore;
  /** Bumped when a deposed control starts or stops, so that its earlier ticks do nothing. */
  private int deposedLife;

  /**
   * @param fresh the control at the cluster's birth
   * @param restore the control restarted from its store's records ({@link Control#restore},
   *     with the placement the fresh one has)
   * @param sent told of every message the control sends, once it is handed to the network
   */
  SimControl(VirtualTime time, Random random, SimNetwork network, Mutant mutant,
      Supplier<Control> fresh, Function<List<Record>, Control> restore,
      Consumer<Envelope> sent) {
    this.time = time;
    this.random = random;
    this.network = network;
    this.mutant = mutant;
    this.fresh = fresh;
    this.restore = restore;
    this.sent = sent;
    this.store = new SimLog(time, random, this::send);
    this.control = fresh.get();
  }

  /** The control: the running one, or while down the table its store holds. */
  Control control() {
    return control;
  }

  boolean up() {
    return up;
  }

  /** Starts the ticks. */
  void start() {
    int inc = incarnation;
    time.schedule(0, () -> tick(inc));
  }

  private void tick(int inc) {
    if (inc != incarnation || !up) {
      return;
    }
    if (crashMidChange != null && durableMidChange()) {
      Runnable then = crashMidChange;
      crash();
      then.run();
      return;
    }
    control.tick(time.now());
    drain();
    time.schedule(SimNode.TICK_MILLIS, () -> tick(inc));
  }

  /** Hands a node's message to the control and to a deposed one still running; lost while down. */
  void receive(Envelope e) {
    if (deposed != null) {
      deposed.step(e);
      drainDeposed();
    }
    if (up) {
      control.step(e);
      drain();
    }
  }

  /** Runs {@code action} on the control now, or once it is up again. */
  void whenUp(Runnable action) {
    if (up) {
      action.run();
    } else {
      whenUp.add(action);
    }
  }

  /** Acts on what the control asks: records to the store, messages once those are durable. */
  void drain() {
    Ready r = control.ready();
    if (r.isEmpty()) {
      return;
    }
    store.write(r.records(), r.messages(), mutant == Mutant.CONTROL_ACTS_BEFORE_DURABLE);
    if (crashAtNextWrite != null && !r.records().isEmpty()) {
      Runnable then = crashAtNextWrite;
      crash();
      then.run();
      return;
    }
    store.syncIfNeeded(this::inThisLife);
  }

  /** {@code synced}, unless the control crashed or started again meanwhile. */
  private Runnable inThisLife(Runnable synced) {
    int inc = incarnation;
    return () -> {
      if (inc == incarnation && up) {
        synced.run();
      }
    };
  }

  /**
   * Arms a crash at the control's next write to its store, before the write is durable (the
   * store's connection drops and the process exits): the moment a change is decided and not yet
   * kept. {@code then} runs at the crash; false if the control is down or a crash is armed.
   */
  boolean crashAtNextWrite(Runnable then) {
    if (!up || crashAtNextWrite != null || crashMidChange != null) {
      return false;
    }
    crashAtNextWrite = then;
    return true;
  }

  /**
   * Arms a crash for the first tick at which the store holds a partition with a member not yet
   * level (a join or a move under way, made durable): the restarted control must not take that
   * member for level. {@code then} runs at the crash; false if the control is down or a crash is
   * armed.
   */
  boolean crashMidChange(Runnable then) {
    if (!up || crashAtNextWrite != null || crashMidChange != null) {
      return false;
    }
    crashMidChange = then;
    return true;
  }

  /** Whether the last durable state has a partition with a member not known to be level. */
  private boolean durableMidChange() {
    List<Record> durable = store.durable();
    for (int i = durable.size() - 1; i >= 0; i--) {
      if (durable.get(i) instanceof ControlState s) {
        return s.rows().stream().anyMatch(r -> !r.level().containsAll(r.members()));
      }
    }
    return false;
  }

  private void send(Envelope e) {
    network.transmit(e);
    sent.accept(e);
  }

  /**
   * A standby takes over while the control runs: the successor restores from the store, the
   * control's write in flight is lost, and the control runs on, deposed, for {@code lifeMillis}
   * at most (until its next write fails and it stops).
   */
  Takeover takeover(long lifeMillis) {
    if (!up || crashAtNextWrite != null || crashMidChange != null || deposed != null) {
      return Takeover.REFUSED;
    }
    Control old = control;
    // a write in flight: fenced, so lost; what waited for it never leaves, so a control deposed
    // mid-write sends nothing more and is as good as stopped
    boolean writing = !store.idle();
    List<Envelope> inFlight = store.waitingMessages();
    List<Record> unsynced = store.unsynced();
    crash();
    restart();
    if (mutant == Mutant.TAKEOVER_WITHOUT_FENCE) {
      // the planted bug: nothing fences the deposed control, so its write in flight lands after
      // the successor read the store, and it goes on writing and sending
      // (its own log stands for the store as it sees it: only when its writes land matters)
      deposedStore = new SimLog(time, random, network::transmit);
      deposedStore.write(unsynced, inFlight, false);
    } else if (writing) {
      return Takeover.MID_WRITE;
    }
    deposed = old;
    int life = ++deposedLife;
    if (deposedStore != null) {
      // started in this life, so that the sync's end counts
      deposedStore.syncIfNeeded(this::inDeposedLife);
    }
    time.schedule(lifeMillis, () -> {
      if (life == deposedLife) {
        stopDeposed();
      }
    });
    time.schedule(SimNode.TICK_MILLIS, () -> tickDeposed(life));
    return writing ? Takeover.MID_WRITE : Takeover.RUNS_ON;
  }

  private void tickDeposed(int life) {
    if (life != deposedLife) {
      return;
    }
    deposed.tick(time.now());
    drainDeposed();
    if (life == deposedLife) {
      time.schedule(SimNode.TICK_MILLIS, () -> tickDeposed(life));
    }
  }

  /**
   * Acts on what the deposed control asks: messages that need no new record leave; a record
   * means a write, which the store refuses, and the control stops.
   */
  private void drainDeposed() {
    Ready r = deposed.ready();
    if (r.isEmpty()) {
      return;
    }
    if (deposedStore != null) {
      deposedStore.write(r.records(), r.messages(), false);
      deposedStore.syncIfNeeded(this::inDeposedLife);
      return;
    }
    if (!r.records().isEmpty()) {
      stopDeposed();
      return;
    }
    r.messages().forEach(network::transmit);
  }

  /** {@code synced}, unless the deposed control stopped meanwhile. */
  private Runnable inDeposedLife(Runnable synced) {
    int life = deposedLife;
    return () -> {
      if (life == deposedLife) {
        synced.run();
      }
    };
  }

  private void stopDeposed() {
    deposed = null;
    deposedStore = null;
    deposedLife++;
  }

  /** The control crashes: its volatile state and every write not yet durable are lost. */
  void crash() {
    if (!up) {
      return;
    }
    up = false;
    crashAtNextWrite = null;
    crashMidChange = null;
    incarnation++;
    store.loseUndurable();
    control = fromStore();
  }

  /** The control starts again from its store, and does what waited for it. */
  void restart() {
    crashAtNextWrite = null;
    crashMidChange = null;
    if (up) {
      return;
    }
    control = fromStore();
    up = true;
    incarnation++;
    start();
    List<Runnable> held = new ArrayList<>(whenUp);
    whenUp.clear();
    held.forEach(Runnable::run);
  }

  private Control fromStore() {
    List<Record> durable = store.durable();
    if (durable.isEmpty()) {
      return fresh.get();
    }
    if (mutant != Mutant.CONTROL_FORGETS_LEVEL) {
      return restore.apply(durable);
    }
    // the planted bug: the store keeps the table's configurations, not who is level, and the
    // restarted control counts every member level
    ControlState last = (ControlState) durable.get(durable.size() - 1);
    List<ControlState.Row> rows = last.rows().stream().map(r -> new ControlState.Row(
        r.partition(), r.epoch(), r.numbering(), r.members(),
        new java.util.TreeSet<>(r.members()), r.parent(), r.splitAt(), r.move())).toList();
    return restore.apply(List.of(new ControlState(last.base(), rows, last.nodes(),
        last.leaving(), last.incarnations())));
  }
}
