package io.partkit.harness.system;

import io.partkit.harness.system.SystemUnderTest.Migration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;

/**
 * What a system can do beyond starting, serving clients and stopping, one interface per thing,
 * as Jepsen's {@code jepsen.db} has separate Kill, Pause and Primary protocols. A system
 * implements the ones it offers; a nemesis names the one it needs ({@code Nemesis.needs()}) and a
 * run on a system without it is refused before anything starts, naming what is missing.
 */
public interface Capability {

  /** {@code kill -9} of a node's process, and a start of it again with the same data. */
  interface Kill extends Capability {
    /** {@code kill -9} of {@code node}'s process. */
    void kill(String node);

    /** Starts a killed node again with the same data and address. A no-op when it runs. */
    void restart(String node);
  }

  /** {@code SIGSTOP} and {@code SIGCONT} of a node's process. */
  interface Pause extends Capability {
    void pause(String node);

    void resume(String node);
  }

  /** Nodes that leave and join during a run, so data moves between them. */
  interface Membership extends Capability {
    /** Takes {@code node} out of the cluster (its data moves to the others); it keeps running. */
    void leave(String node);

    /** Brings a node that left back in (data moves to it). */
    void join(String node);
  }

  /** A data migration caught in flight, for a fault aimed at its source or target. */
  interface Migrations extends Capability {
    /**
     * Starts a membership change and waits until one of the migrations it starts has fenced its
     * source. Empty when none was caught within {@code timeout}.
     */
    Optional<Migration> startMigration(Duration timeout);

    /**
     * Why {@link #startMigration} cannot catch a migration when the system runs with
     * {@code options}, or empty when it can (asked before anything starts).
     */
    default Optional<String> cannotCatchMigrations(OptionValues options) {
      return Optional.empty();
    }
  }

  /** A node lost for good (its process and its disk) and a new, empty one in its place. */
  interface LoseNodes extends Capability {
    /**
     * Loses {@code node} for good: kills its process, deletes its data, and declares it failed,
     * so the system must serve its data from the other copies.
     *
     * @return what was done, for the history (a system may do less when losing this node now
     *     would leave fewer nodes than copies: it then says so)
     */
    String lose(String node);

    /** A new, empty node takes the place of a lost one (same name and address). */
    void replace(String node);

    /**
     * Why this system, started with {@code options} on {@code nodes} nodes, cannot be expected to
     * keep every acknowledged write when a node is lost for good, or empty when it can.
     */
    default Optional<String> cannotLoseNodes(OptionValues options, int nodes) {
      return Optional.empty();
    }
  }

  /** Partitions split while clients run, so that keys move to new partitions under them. */
  interface Splits extends Capability {
    /**
     * Splits one partition, chosen with {@code random}, and returns once the system has
     * committed the split.
     *
     * @return what was split, for the history; empty when the system splits no further (its
     *     table is at the size it allows)
     */
    Optional<String> split(Random random);
  }

  /**
   * Processes besides the data nodes that a network partition may cut off too: a control or
   * coordinator whose decisions depend on what it hears from the nodes. The partition nemesis
   * draws its shape over the data nodes and these together.
   */
  interface CutsAlso extends Capability {
    /** The names (as given to the runtime) of the processes a partition may cut besides nodes. */
    List<String> alsoCut();
  }

  /** A check, after the run, that every key is stored where a placement rule predicts. */
  interface CheckPlacement extends Capability {
    /**
     * The check's result (a misplaced key makes the run invalid), or empty when this
     * configuration has no placement of partkit's to check. A placement may still be settling
     * after recovery (a copy being levelled, a rebalance ending): the check looks again until it
     * holds or {@code patience} has passed, and looks at least once ({@link Duration#ZERO}: once).
     */
    Optional<PlacementCheck> checkPlacement(Duration patience);
  }

  /**
   * A rebalance the system reports on itself, for {@code partkit bench --live}: what its nodes
   * received to re-create copies, by its own counters, and whether it says it is done. A system
   * with it also offers {@link Membership} (a join and a graceful leave).
   */
  interface Rebalancing extends Capability {
    /**
     * The placement the system runs with its options, as the bench's report names it:
     * {@code fixed}, {@code native}, {@code partkit-rendezvous}, ...
     */
    String placement();

    /** Copies of each partition the system keeps (primary included) with its options. */
    int copies();

    /**
     * Partitions the system cuts its keys into with its options (for the prediction). Empty when
     * the count follows the membership (a token ring).
     */
    OptionalInt partitions();

    /** A client of plain keys and byte values, not recorded in any history (one per worker). */
    DataClient openDataClient();

    /**
     * Per node that runs now, what it received from other nodes to create copies since it
     * started, by the system's own counters, events or metrics. A node that does not answer is
     * left out.
     */
    Map<String, Received> received();

    /**
     * Empty when the system says every copy is in place and no rebalance is in progress;
     * otherwise what it says is still going on.
     */
    Optional<String> rebalancing();

    /**
     * {@code node} dies and does not come back (its process and its data), and the system is made
     * aware of it as it would be in production (its failure detector, or the operator's removal
     * where the system has no detector of its own); its copies are re-created on the others.
     * Returns once the failure is set in motion; {@link #rebalancing()} says when it is done.
     *
     * @return what was done, one line for the report
     */
    String crash(String node);
  }

  /**
   * What one node received from the others to create copies, summed since it started.
   *
   * @param keys entries received (a key copied twice counts twice)
   * @param bytes bytes of those entries, as the system counts them
   * @param partitions partition copies received (a partition moved in pieces counts once per
   *     completed move)
   */
  record Received(long keys, long bytes, long partitions) {
    /** Nothing received. */
    public static final Received NONE = new Received(0, 0, 0);

    public Received {
      if (keys < 0 || bytes < 0 || partitions < 0) {
        throw new IllegalArgumentException("negative counter: " + keys + " keys, " + bytes
            + " bytes, " + partitions + " partitions");
      }
    }

    /**
     * What the nodes of {@code after} received since {@code before}, two {@link
     * Rebalancing#received()} answers: summed over the nodes running after, each counted from
     * its figure before (from zero for a node that was not running then, or whose counters went
     * down: it restarted and counts afresh). A node gone since is left out: what it received is
     * not where the copies now are.
     */
    public static Received since(Map<String, Received> before, Map<String, Received> after) {
      long keys = 0;
      long bytes = 0;
      long partitions = 0;
      for (Map.Entry<String, Received> e : after.entrySet()) {
        Received b = before.getOrDefault(e.getKey(), NONE);
        Received a = e.getValue();
        boolean restarted = a.keys() < b.keys() || a.bytes() < b.bytes()
            || a.partitions() < b.partitions();
        Received from = restarted ? NONE : b;
        keys += a.keys() - from.keys();
        bytes += a.bytes() - from.bytes();
        partitions += a.partitions() - from.partitions();
      }
      return new Received(keys, bytes, partitions);
    }
  }

  /** The capabilities in the order {@link #names} lists them. */
  List<Class<? extends Capability>> ALL = List.of(Kill.class, Pause.class, Membership.class,
      Migrations.class, LoseNodes.class, CheckPlacement.class, Rebalancing.class, Splits.class);

  /** A capability's name in messages and listings: kill, pause, membership, ... */
  static String name(Class<? extends Capability> capability) {
    return switch (capability.getSimpleName()) {
      case "Kill" -> "kill";
      case "Pause" -> "pause";
      case "Membership" -> "membership";
      case "Migrations" -> "migrations";
      case "LoseNodes" -> "lose-nodes";
      case "CheckPlacement" -> "placement-check";
      case "Rebalancing" -> "rebalancing";
      case "Splits" -> "splits";
      default -> capability.getSimpleName();
    };
  }

  /** The names of the capabilities {@code system} offers. */
  static List<String> names(SystemUnderTest system) {
    List<String> names = new ArrayList<>();
    for (Class<? extends Capability> c : ALL) {
      if (c.isInstance(system)) {
        names.add(name(c));
      }
    }
    return names;
  }
}
