package io.partkit.harness.nemesis;

import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.RuntimeCapability;
import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.Capability;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.SystemUnderTest;
import io.partkit.harness.system.SystemUnderTest.Migration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/** The nemeses by name. */
public final class Nemeses {

  /** The names {@link #named} knows. */
  public static final List<String> NAMES =
      List.of("kill", "pause", "partition", "membership", "migration", "lose", "split");

  private Nemeses() {}

  /**
   * The nemesis called {@code name}.
   *
   * @throws IllegalArgumentException for an unknown name, listing the known ones
   */
  public static Nemesis named(String name) {
    return switch (name) {
      case "kill" -> new ProcessFault<>("kill", Capability.Kill.class, Capability.Kill::kill,
          Capability.Kill::restart);
      case "pause" -> new ProcessFault<>("pause", Capability.Pause.class, Capability.Pause::pause,
          Capability.Pause::resume);
      case "partition" -> new Partition();
      case "membership" -> new Membership();
      case "migration" -> new MidMigration();
      case "lose" -> new Lose();
      case "split" -> new Split();
      default -> throw new IllegalArgumentException("unknown nemesis '" + name
          + "': expected one of " + String.join(", ", NAMES));
    };
  }

  /**
   * Why {@code nemesis} cannot run on {@code system} (started with {@code options} on
   * {@code nodes} nodes) and {@code runtime}, or empty when it can: first the capability it
   * needs and the system lacks, naming both, then the nemesis' own conditions.
   */
  public static Optional<String> refusal(Nemesis nemesis, SystemUnderTest system,
      NodeRuntime runtime, int nodes, OptionValues options) {
    Optional<Class<? extends Capability>> needs = nemesis.needs();
    if (needs.isPresent() && !needs.get().isInstance(system)) {
      List<String> offers = Capability.names(system);
      return Optional.of(system.name() + " lacks the " + Capability.name(needs.get())
          + " capability it needs (" + system.name() + " offers "
          + (offers.isEmpty() ? "none" : String.join(", ", offers)) + ")");
    }
    return nemesis.unsupported(system, runtime, nodes, options);
  }

  private static Fault fault(String description, Runnable heal) {
    return new Fault() {
      @Override
      public String description() {
        return description;
      }

      @Override
      public void heal() {
        heal.run();
      }
    };
  }

  /** A fault that was not injected: nothing to heal. */
  private static Fault nothing(String why) {
    return new Fault() {
      @Override
      public String description() {
        return "nothing: " + why;
      }

      @Override
      public void heal() {}

      @Override
      public boolean injected() {
        return false;
      }
    };
  }

  private static Optional<String> needsTwoNodes(String what, int nodes) {
    return nodes >= 2 ? Optional.empty()
        : Optional.of(what + " needs at least 2 nodes: have " + nodes);
  }

  private static void healNetwork(RuntimeCapability.Partitions cuts) {
    try {
      cuts.heal();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot heal the network", e);
    }
  }

  /**
   * A data node, or (one time in n+1) the node in the special role: kv coordinator, etcd leader.
   */
  private static String target(SystemUnderTest system, Random random) {
    List<String> candidates = new ArrayList<>(system.nodes());
    int pick = random.nextInt(candidates.size() + 1);
    if (pick < candidates.size()) {
      return candidates.get(pick);
    }
    return system.leader().orElse(candidates.get(random.nextInt(candidates.size())));
  }

  /**
   * A fault on one node's process: {@code kill -9} (restarted on heal) or {@code SIGSTOP}
   * ({@code SIGCONT} on heal), for a system with the {@link Capability.Kill} or {@link
   * Capability.Pause} capability.
   */
  static final class ProcessFault<C extends Capability> implements Nemesis {
    private final String name;
    private final Class<C> capability;
    private final BiConsumer<C, String> inject;
    private final BiConsumer<C, String> undo;

    ProcessFault(String name, Class<C> capability, BiConsumer<C, String> inject,
        BiConsumer<C, String> undo) {
      this.name = name;
      this.capability = capability;
      this.inject = inject;
      this.undo = undo;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public Optional<Class<? extends Capability>> needs() {
      return Optional.of(capability);
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime,
        int nodes) {
      return Optional.empty();
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      String node = target(system, random);
      C on = capability.cast(system);
      inject.accept(on, node);
      return fault(name + " " + node, () -> undo.accept(on, node));
    }
  }

  /**
   * A node lost for good: its process killed and its disk deleted; the system declares it
   * failed and must serve everything from the other copies. Healed by a new, empty node in its
   * place. Only for a system run with copies on several nodes.
   */
  static final class Lose implements Nemesis {
    @Override
    public String name() {
      return "lose";
    }

    @Override
    public Optional<Class<? extends Capability>> needs() {
      return Optional.of(Capability.LoseNodes.class);
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime,
        int nodes) {
      return Optional.empty(); // whether a loss is survivable depends on the options: below
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime, int nodes,
        OptionValues options) {
      return ((Capability.LoseNodes) system).cannotLoseNodes(options, nodes);
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      Capability.LoseNodes losing = (Capability.LoseNodes) system;
      String node = system.nodes().get(random.nextInt(system.nodes().size()));
      return fault(losing.lose(node), () -> losing.replace(node));
    }
  }

  /**
   * A partition split while clients run: its keys are divided with a new partition. A split is
   * not undone: the heal does nothing, and the table keeps growing, one partition a fault.
   */
  static final class Split implements Nemesis {
    @Override
    public String name() {
      return "split";
    }

    @Override
    public Optional<Class<? extends Capability>> needs() {
      return Optional.of(Capability.Splits.class);
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime,
        int nodes) {
      return Optional.empty();
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      Optional<String> split = ((Capability.Splits) system).split(random);
      if (split.isEmpty()) {
        return nothing(system.name() + " splits no further: its table is at the size it allows");
      }
      return fault(split.get(), () -> {});
    }
  }

  /**
   * Real packet drops between data nodes, and the processes a system names besides them ({@link
   * Capability.CutsAlso}), in one of Jepsen's shapes.
   */
  static final class Partition implements Nemesis {
    @Override
    public String name() {
      return "partition";
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime,
        int nodes) {
      if (!(runtime instanceof RuntimeCapability.Partitions)) {
        return Optional.of("the " + runtime.name() + " runtime cannot cut the network: use "
            + "--runtime containers (a Docker engine), netns (root) or ssh (hosts), or another "
            + "runtime with the partitions capability (partkit runtimes lists them)");
      }
      return nodes < 2
          ? Optional.of("a partition needs at least 2 nodes") : Optional.empty();
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      List<String> nodes = new ArrayList<>(system.nodes());
      if (system instanceof Capability.CutsAlso also) {
        nodes.addAll(also.alsoCut());
      }
      Collections.shuffle(nodes, random);
      String[] shapes = nodes.size() >= 3
          ? new String[] {"halves", "isolate", "majorities-ring", "bridge"}
          : new String[] {"halves", "isolate"};
      String shape = shapes[random.nextInt(shapes.length)];
      Map<String, Set<String>> grudge = Grudges.of(shape, nodes);
      RuntimeCapability.Partitions cuts = (RuntimeCapability.Partitions) runtime;
      try {
        cuts.partition(grudge);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot partition " + grudge, e);
      }
      return fault("partition " + shape + " " + grudge, () -> healNetwork(cuts));
    }
  }

  /** A node leaves (its partitions migrate away) and joins again on heal. */
  static final class Membership implements Nemesis {
    @Override
    public String name() {
      return "membership";
    }

    @Override
    public Optional<Class<? extends Capability>> needs() {
      return Optional.of(Capability.Membership.class);
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime,
        int nodes) {
      return needsTwoNodes("a membership change", nodes);
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      Capability.Membership membership = (Capability.Membership) system;
      String node = system.nodes().get(random.nextInt(system.nodes().size()));
      membership.leave(node);
      return fault("leave " + node, () -> membership.join(node));
    }
  }

  /**
   * A fault aimed at a migration in flight: a membership change starts one, and once its source
   * is fenced the source or target is paused, the two are cut apart, or the coordinator is
   * killed between recording the migration and committing it.
   */
  static final class MidMigration implements Nemesis {
    private static final Duration CATCH_TIMEOUT = Duration.ofSeconds(30);

    @Override
    public String name() {
      return "migration";
    }

    @Override
    public Optional<Class<? extends Capability>> needs() {
      return Optional.of(Capability.Migrations.class);
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime,
        int nodes) {
      return needsTwoNodes("a migration", nodes);
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime, int nodes,
        OptionValues options) {
      return unsupported(system, runtime, nodes)
          .or(() -> ((Capability.Migrations) system).cannotCatchMigrations(options));
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      Optional<Migration> caught =
          ((Capability.Migrations) system).startMigration(CATCH_TIMEOUT);
      if (caught.isEmpty()) { // the membership change itself is the system's to settle
        return nothing("no migration caught in flight within " + CATCH_TIMEOUT.toSeconds()
            + " s");
      }
      Migration m = caught.get();
      String where = " (partition " + m.partition() + " " + m.source() + " -> " + m.target() + ")";
      Map<String, Supplier<Fault>> choices = new LinkedHashMap<>();
      if (system instanceof Capability.Pause pausing) {
        choices.put("pause-source", () -> {
          pausing.pause(m.source());
          return fault("pause source " + m.source() + where, () -> pausing.resume(m.source()));
        });
        choices.put("pause-target", () -> {
          pausing.pause(m.target());
          return fault("pause target " + m.target() + where, () -> pausing.resume(m.target()));
        });
      }
      if (system instanceof Capability.Kill killing) {
        system.leader().ifPresent(leader -> choices.put("kill-leader", () -> {
          killing.kill(leader);
          return fault("kill " + leader + " mid-migration" + where,
              () -> killing.restart(leader));
        }));
      }
      if (runtime instanceof RuntimeCapability.Partitions cuts) {
        choices.put("cut", () -> {
          try {
            cuts.partition(Map.of(m.source(), new TreeSet<>(Set.of(m.target())),
                m.target(), new TreeSet<>(Set.of(m.source()))));
          } catch (IOException e) {
            throw new SetupException("cannot cut " + m.source() + " from " + m.target(), e);
          }
          return fault("cut source from target" + where, () -> healNetwork(cuts));
        });
      }
      if (choices.isEmpty()) {
        return nothing(system.name() + " can be neither paused nor killed" + where);
      }
      List<String> names = new ArrayList<>(choices.keySet());
      return choices.get(names.get(random.nextInt(names.size()))).get();
    }
  }
}
