package io.partkit.harness.nemesis;

import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.SetupException;
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
      List.of("kill", "pause", "partition", "membership", "migration", "lose");

  private Nemeses() {}

  /**
   * The nemesis called {@code name}.
   *
   * @throws IllegalArgumentException for an unknown name, listing the known ones
   */
  public static Nemesis named(String name) {
    return switch (name) {
      case "kill" -> new ProcessFault("kill", SystemUnderTest::kill, SystemUnderTest::restart);
      case "pause" -> new ProcessFault("pause", SystemUnderTest::pause, SystemUnderTest::resume);
      case "partition" -> new Partition();
      case "membership" -> new Membership();
      case "migration" -> new MidMigration();
      case "lose" -> new Lose();
      default -> throw new IllegalArgumentException("unknown nemesis '" + name
          + "': expected one of " + String.join(", ", NAMES));
    };
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

  private static Optional<String> needsMembership(SystemUnderTest system, int nodes, String why) {
    return system.supportsMembership() && nodes >= 2 ? Optional.empty()
        : Optional.of(system.name() + " " + why);
  }

  private static void healNetwork(NodeRuntime runtime) {
    try {
      runtime.heal();
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
   * ({@code SIGCONT} on heal). Every system can take both.
   */
  static final class ProcessFault implements Nemesis {
    private final String name;
    private final BiConsumer<SystemUnderTest, String> inject;
    private final BiConsumer<SystemUnderTest, String> undo;

    ProcessFault(String name, BiConsumer<SystemUnderTest, String> inject,
        BiConsumer<SystemUnderTest, String> undo) {
      this.name = name;
      this.inject = inject;
      this.undo = undo;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime,
        int nodes) {
      return Optional.empty();
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      String node = target(system, random);
      inject.accept(system, node);
      return fault(name + " " + node, () -> undo.accept(system, node));
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
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime,
        int nodes) {
      return system.cannotLoseNodes(Map.of(), nodes);
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime, int nodes,
        Map<String, String> options) {
      return system.cannotLoseNodes(options, nodes);
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      String node = system.nodes().get(random.nextInt(system.nodes().size()));
      return fault(system.lose(node), () -> system.replace(node));
    }
  }

  /** Real packet drops between data nodes, in one of Jepsen's shapes. */
  static final class Partition implements Nemesis {
    @Override
    public String name() {
      return "partition";
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime,
        int nodes) {
      if (!runtime.supportsPartitions()) {
        return Optional.of("the " + runtime.name() + " runtime cannot cut the network: use "
            + "--runtime containers (a Docker engine), netns (root) or ssh (hosts)");
      }
      return nodes < 2
          ? Optional.of("a partition needs at least 2 nodes") : Optional.empty();
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      List<String> nodes = new ArrayList<>(system.nodes());
      Collections.shuffle(nodes, random);
      String[] shapes = nodes.size() >= 3
          ? new String[] {"halves", "isolate", "majorities-ring", "bridge"}
          : new String[] {"halves", "isolate"};
      String shape = shapes[random.nextInt(shapes.length)];
      Map<String, Set<String>> grudge = Grudges.of(shape, nodes);
      try {
        runtime.partition(grudge);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot partition " + grudge, e);
      }
      return fault("partition " + shape + " " + grudge, () -> healNetwork(runtime));
    }
  }

  /** A node leaves (its partitions migrate away) and joins again on heal. */
  static final class Membership implements Nemesis {
    @Override
    public String name() {
      return "membership";
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime,
        int nodes) {
      return needsMembership(system, nodes, "has no membership changes to inject");
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      String node = system.nodes().get(random.nextInt(system.nodes().size()));
      system.leave(node);
      return fault("leave " + node, () -> system.join(node));
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
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime,
        int nodes) {
      return needsMembership(system, nodes, "moves no data between nodes");
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime, int nodes,
        Map<String, String> options) {
      return unsupported(system, runtime, nodes).or(() -> system.cannotCatchMigrations(options));
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      Optional<Migration> caught = system.startMigration(CATCH_TIMEOUT);
      if (caught.isEmpty()) {
        return new Fault() { // the membership change itself is the system's to settle
          @Override
          public String description() {
            return "nothing: no migration caught in flight within " + CATCH_TIMEOUT.toSeconds()
                + " s";
          }

          @Override
          public void heal() {}

          @Override
          public boolean injected() {
            return false;
          }
        };
      }
      Migration m = caught.get();
      String where = " (partition " + m.partition() + " " + m.source() + " -> " + m.target() + ")";
      Map<String, Supplier<Fault>> choices = new LinkedHashMap<>();
      choices.put("pause-source", () -> {
        system.pause(m.source());
        return fault("pause source " + m.source() + where, () -> system.resume(m.source()));
      });
      choices.put("pause-target", () -> {
        system.pause(m.target());
        return fault("pause target " + m.target() + where, () -> system.resume(m.target()));
      });
      system.leader().ifPresent(leader -> choices.put("kill-leader", () -> {
        system.kill(leader);
        return fault("kill " + leader + " mid-migration" + where, () -> system.restart(leader));
      }));
      if (runtime.supportsPartitions()) {
        choices.put("cut", () -> {
          try {
            runtime.partition(Map.of(m.source(), new TreeSet<>(Set.of(m.target())),
                m.target(), new TreeSet<>(Set.of(m.source()))));
          } catch (IOException e) {
            throw new SetupException("cannot cut " + m.source() + " from " + m.target(), e);
          }
          return fault("cut source from target" + where, () -> healNetwork(runtime));
        });
      }
      List<String> names = new ArrayList<>(choices.keySet());
      return choices.get(names.get(random.nextInt(names.size()))).get();
    }
  }
}
