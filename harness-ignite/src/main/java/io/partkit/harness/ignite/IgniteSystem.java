package io.partkit.harness.ignite;

import io.partkit.harness.runtime.NodeProcess;
import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.Capability;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.DataClient;
import io.partkit.harness.system.JavaCommand;
import io.partkit.harness.system.NodeProcessSystem;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.PlacementCheck;
import io.partkit.harness.system.SystemContext;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Apache Ignite 2.x under test: {@code n} server nodes {@code n1..nN}, each an
 * {@link IgniteNodeMain} process with a 256 MB heap, one partitioned cache used as a register per
 * key through thin clients ({@link IgniteRegisterClient}).
 *
 * <p>Options ({@code --option k=v}): {@code affinity} ({@code partkit-fixed}, the default:
 * {@code PartkitAffinityFunction} running {@code fixed}; {@code partkit-rendezvous}; {@code
 * native}: Ignite's {@code RendezvousAffinityFunction}), {@code partitions} (64),
 * {@code atomicity} ({@code atomic}, the default, or {@code transactional}: every operation in a
 * pessimistic serializable transaction), {@code backups} (1 or 2; default 1), and
 * {@code failure-detection} (Ignite's failure detection timeout in ms; Ignite's default 10 s),
 * {@code read-from-backup} ({@code false}, the default: every get goes to the primary;
 * {@code true}, Ignite's default: a get may be answered by a backup copy, which in an atomic
 * cache applies a write after the primary, so reads are not linearizable; see
 * docs/backends.md) and {@code write-sync} ({@code full-sync}, the default: a write
 * is acknowledged once every copy has it; {@code primary-sync}, Ignite's default: once the
 * primary has it; {@code full-async}).
 * A lost partition refuses operations ({@code READ_WRITE_SAFE}).
 *
 * <p>Membership: a leave stops the node gracefully (Ignite's {@code GRACEFUL} shutdown policy:
 * it waits until the node's partitions have copies elsewhere), a join starts it again, so Ignite
 * rebalances partkit's placement both ways. After a run with partkit's affinity,
 * {@link #checkPlacement(Duration)} compares every partition's owners with partkit's prediction.
 *
 * <p>Rebalancing ({@code partkit bench --live}): what each node received is Ignite's own
 * rebalance metrics, summed over its rebalances by the node ({@link IgniteRebalanceCounters});
 * the rebalance is done when every node sees exactly the servers that should be there, finished
 * the partition exchange of that topology and Ignite lists no MOVING partition
 * ({@link IgniteRebalanceState#stillGoing}). A crash is a {@code kill -9} for good; Ignite's
 * failure detector ({@code failure-detection}) removes the node.
 *
 * <p>The harness has no Ignite client node (it would join the topology and, on {@code netns},
 * live outside the nodes' network); it asks nodes over their standard input instead (see
 * {@link IgniteNodeMain}). What recovery had to do (nodes Ignite stopped, nodes split off into a
 * cluster of their own) is appended to {@code ignite-notes.txt} in the run directory.
 */
final class IgniteSystem extends NodeProcessSystem
    implements Capability.Membership, Capability.CheckPlacement, Capability.Rebalancing {

  /** Ignite's start and join are slow on two loaded cores: be generous. */
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(60);

  private final Map<String, List<String>> commands = new ConcurrentHashMap<>();
  private String affinity;
  private int partitions;
  private int backups;
  private int failureDetectionMillis;
  private boolean transactional;
  /** The topology version the cache was created in: where the placement prediction starts. */
  private long createdVersion;
  private Random random;

  IgniteSystem() {
    super("ignite");
  }

  @Override
  public void start(SystemContext ctx) {
    this.random = new Random(ctx.seed() ^ 0x1617L);
    OptionValues o = ctx.options();
    this.affinity = o.text("affinity");
    this.partitions = o.integer("partitions");
    this.backups = o.integer("backups");
    this.failureDetectionMillis = o.integer("failure-detection");
    String atomicity = o.text("atomicity");
    this.transactional = atomicity.equals("transactional");
    openNodes(ctx, "n", List.of());
    String peers = nodes().stream()
        .map(n -> runtime().host(n) + ":" + runtime().port(n, "disco", 47500))
        .collect(Collectors.joining(","));
    List<String> flags = jvmFlags();
    for (String n : nodes()) {
      List<String> args = new ArrayList<>(List.of("--id", n, "--host", runtime().host(n),
          "--disco", Integer.toString(runtime().port(n, "disco", 47500)),
          "--comm", Integer.toString(runtime().port(n, "comm", 47100)),
          "--thin", Integer.toString(runtime().port(n, "thin", 10800)),
          "--peers", peers, "--work", ctx.dir().resolve("data").resolve(n).toString()));
      args.addAll(cacheArgs(o));
      args.addAll(List.of("--region-mb", Integer.toString(o.integer("region-mb"))));
      if (o.isGiven("failure-detection")) {
        args.addAll(List.of("--failure-detection", o.text("failure-detection")));
      }
      List<String> cmd = new ArrayList<>(JavaCommand.of(o.integer("heap-mb") + "m",
          IgniteNodeMain.class, args));
      cmd.addAll(1, flags);
      commands.put(n, List.copyOf(cmd));
    }
    try {
      CompletableFuture.allOf(nodes().stream()
          .map(n -> CompletableFuture.runAsync(() -> startNode(n),
              task -> new Thread(task, "start-" + n).start()))
          .toArray(CompletableFuture[]::new)).join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    awaitTopology(Set.copyOf(nodes()), START_TIMEOUT);
    // created once all servers joined: the first table is the strategy's table of all of them
    String created = ask(nodes().get(0), "CREATE", "CACHE ");
    this.createdVersion = Long.parseLong(created.split(" ")[1]);
  }

  /**
   * The register cache's options as every node gets them ({@link IgniteNodeMain#cache}), the
   * defaults included: the node has no defaults of its own, so the harness's (which differ from
   * Ignite's for {@code read-from-backup} and {@code write-sync}) are the only ones.
   */
  static List<String> cacheArgs(OptionValues o) {
    return List.of("--affinity", o.text("affinity"),
        "--partitions", Integer.toString(o.integer("partitions")),
        "--backups", Integer.toString(o.integer("backups")),
        "--atomicity", o.text("atomicity"),
        "--read-from-backup", o.text("read-from-backup"),
        "--write-sync", o.text("write-sync"));
  }

  /** Ignite's Java 17 flags (see {@link JavaCommand#productFlags}) and two of the harness's. */
  static List<String> jvmFlags() {
    List<String> flags = JavaCommand.productFlags("ignite");
    // no phone-home from test nodes; IPv4 as the runtimes' addresses are
    flags.addAll(List.of("-DIGNITE_UPDATE_NOTIFIER=false", "-Djava.net.preferIPv4Stack=true"));
    return flags;
  }

  @Override
  protected void startNode(String node) {
    try {
      NodeProcess p = started(node, runtime().start(node, commands.get(node), context().log(node)));
      p.awaitLine("IGNITE READY ", START_TIMEOUT);
    } catch (IOException e) {
      throw new SetupException("cannot start ignite node " + node + ": " + e.getMessage(), e);
    }
  }

  /** Sends a command to a node and returns its one-line answer (see {@link IgniteNodeMain}). */
  private String ask(String node, String command, String replyPrefix) {
    if (!running(node)) {
      throw new SetupException("ignite node " + node + " is not running");
    }
    NodeProcess p = process(node);
    // one question at a time per node: answers are told apart only by their order
    synchronized (p) {
      p.skipLines();
      try {
        p.send(command);
      } catch (IOException e) {
        throw new SetupException("cannot reach ignite node " + node + ": " + e.getMessage(), e);
      }
      return p.awaitLine(replyPrefix, COMMAND_TIMEOUT);
    }
  }

  /** The servers {@code node} sees, or an empty set when it does not answer. */
  private Set<String> topologySeenBy(String node) {
    try {
      String[] reply = ask(node, "TOPOLOGY", "TOPOLOGY ").split(" ");
      return reply.length < 3 ? Set.of() : Set.of(reply[2].split(","));
    } catch (SetupException e) {
      return Set.of();
    }
  }

  /** Waits until every node of {@code expected} sees exactly {@code expected}. */
  private void awaitTopology(Set<String> expected, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<String> wrong = expected.stream()
          .filter(n -> !topologySeenBy(n).equals(expected)).sorted().toList();
      if (wrong.isEmpty()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new SetupException("ignite nodes " + wrong + " do not see the topology " + expected
            + " after " + timeout.toSeconds() + " s");
      }
      pollPause(500, "ignite"); // Ignite's discovery converges on its own; poll its view
    }
  }

  @Override
  public void restart(String node) {
    try {
      super.restart(node);
    } catch (SetupException e) {
      // e.g. the old instance is still in the topology: recovery tries again
      note("restart of " + node + " failed: " + firstLine(e.getMessage()));
    }
  }

  @Override
  public void leave(String node) {
    NodeProcess p = process(node);
    long running = members().size();
    // keep backups + 1 servers, so a leave never has to drop the last copy of a partition
    if (p == null || !p.isAlive() || running <= backups + 1 || !markLeft(node)) {
      return;
    }
    try {
      p.send("STOP");
    } catch (IOException e) {
      return; // it died on its own meanwhile
    }
    long deadline = System.nanoTime() + LEAVE_TIMEOUT.toNanos();
    while (p.isAlive() && System.nanoTime() < deadline) {
      pollPause(100, "ignite");
    }
    if (p.isAlive()) {
      note("graceful leave of " + node + " did not end in " + LEAVE_TIMEOUT.toSeconds()
          + " s: killed");
      p.kill();
    }
  }

  @Override
  public void join(String node) {
    rejoin(node);
  }

  /** The servers that should be in the cluster: neither left nor crashed. */
  private Set<String> members() {
    return nodes().stream().filter(n -> !hasLeft(n) && !isGone(n))
        .collect(Collectors.toSet());
  }

  @Override
  public String placement() {
    return affinity;
  }

  @Override
  public int copies() {
    return backups + 1;
  }

  @Override
  public OptionalInt partitions() {
    return OptionalInt.of(partitions);
  }

  @Override
  public DataClient openDataClient() {
    return new IgniteDataClient(shuffledThinAddresses());
  }

  @Override
  public Map<String, Received> received() {
    Map<String, Received> received = new TreeMap<>();
    for (Map.Entry<String, IgniteRebalanceState> e : rebalanceStates().entrySet()) {
      received.put(e.getKey(), e.getValue().received());
    }
    return received;
  }

  @Override
  public Optional<String> rebalancing() {
    Set<String> expected = members();
    Map<String, Set<String>> topologies = new TreeMap<>();
    for (String n : expected) {
      if (running(n)) {
        Set<String> seen = topologySeenBy(n);
        if (!seen.isEmpty()) {
          topologies.put(n, seen);
        }
      }
    }
    return IgniteRebalanceState.stillGoing(expected, topologies, rebalanceStates());
  }

  /** Every running node's {@code REBALANCE} answer; a node that does not answer is left out. */
  private Map<String, IgniteRebalanceState> rebalanceStates() {
    Map<String, IgniteRebalanceState> states = new TreeMap<>();
    for (String n : nodes()) {
      if (!running(n)) {
        continue;
      }
      try {
        states.put(n, IgniteRebalanceState.parse(ask(n, "REBALANCE", "REBALANCE ")));
      } catch (SetupException e) {
        // stopped or busy: left out, as the interface says
      }
    }
    return states;
  }

  @Override
  public String crash(String node) {
    process(node); // an unknown node is refused
    killForGood(node);
    return "kill -9 of ignite node " + node + " for good; Ignite's failure detector ("
        + failureDetectionMillis + " ms) removes it";
  }

  @Override
  public void awaitRecovered(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Set<String> wanted = members();
    for (int round = 0; ; round++) {
      for (String n : wanted) {
        NodeProcess p = process(n);
        if (!running(n)) {
          note("recovery: " + n + " was not running (" + (p == null ? "never started"
              : "exited: killed, or stopped by Ignite") + "), started again");
          restart(n);
        }
      }
      Map<String, Set<String>> views = new TreeMap<>();
      for (String n : wanted) {
        views.put(n, topologySeenBy(n));
      }
      if (views.values().stream().allMatch(wanted::equals)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new SetupException("ignite did not recover in " + timeout.toSeconds()
            + " s: views " + views);
      }
      if (round > 0 && round % 20 == 0) {
        // after ~10 s more: a node that still sees another cluster split off for good (Ignite
        // does not merge clusters); restart it so that it joins the larger one again
        Set<String> largest = views.values().stream()
            .max((a, b) -> Integer.compare(a.size(), b.size())).orElse(Set.of());
        for (Map.Entry<String, Set<String>> e : views.entrySet()) {
          if (!largest.contains(e.getKey())) {
            note("recovery: " + e.getKey() + " sees " + e.getValue() + ", outside " + largest
                + ": restarted");
            kill(e.getKey());
            restart(e.getKey());
          }
        }
      }
      pollPause(500, "ignite");
    }
  }

  /**
   * With partkit's affinity: every partition's owners (so every key's) on the live nodes, as a
   * live node reports them once rebalancing ended, against partkit's replay of the topologies
   * since the cache was created. Polled until they agree or {@code patience} passes: Ignite
   * reports the owners in force, which are the ideal ones only after rebalancing. Empty with
   * Ignite's native affinity (nothing of partkit's to check).
   */
  @Override
  public Optional<PlacementCheck> checkPlacement(Duration patience) {
    if (affinity.equals("native")) {
      return Optional.empty();
    }
    String strategy = affinity.substring("partkit-".length());
    String rule = "partkit " + strategy + ", " + partitions + " partitions, " + backups
        + " backups, replayed through every topology since the cache was created";
    long deadline = System.nanoTime() + patience.toNanos();
    List<String> problems = checkOnce(strategy);
    while (!problems.isEmpty() && System.nanoTime() < deadline) {
      // Ignite reports the owners in force until rebalancing ends: poll, bounded
      pollPause(1000, "ignite");
      problems = checkOnce(strategy);
    }
    return Optional.of(new PlacementCheck(rule, partitions, problems));
  }

  private List<String> checkOnce(String strategy) {
    List<String> candidates = new ArrayList<>(nodes());
    Collections.shuffle(candidates, random);
    List<String> why = new ArrayList<>();
    for (String n : candidates) {
      if (!running(n) || hasLeft(n)) {
        continue;
      }
      String reply;
      try {
        reply = ask(n, "PLACEMENT " + createdVersion, "PLACEMENT ");
      } catch (SetupException e) {
        why.add(n + ": " + firstLine(e.getMessage()));
        continue;
      }
      String[] parts = reply.split(" ");
      if (parts.length < 4 || parts[1].equals("incomplete")) {
        why.add(n + ": " + reply);
        continue; // a node that joined later lacks the history: ask another
      }
      List<IgnitePlacementCheck.Topology> history = new ArrayList<>();
      for (String entry : parts[2].split(";")) {
        String[] kv = entry.split("=", 2);
        history.add(new IgnitePlacementCheck.Topology(Long.parseLong(kv[0]),
            kv.length < 2 || kv[1].isEmpty() ? List.of() : List.of(kv[1].split(","))));
      }
      List<List<String>> owners = Arrays.stream(parts[3].split("\\|", -1))
          .map(s -> s.isEmpty() ? List.<String>of() : List.of(s.split(","))).toList();
      PartitionAssignment predicted = IgnitePlacementCheck.predict(strategy, partitions, backups,
          history);
      List<String> problems = new ArrayList<>(IgnitePlacementCheck.compare(predicted, owners));
      if (parts.length > 4 && !parts[4].equals("lost=-")) {
        // lost partitions stay lost (READ_WRITE_SAFE) and keep Ignite from settling
        problems.add(0, "Ignite reports lost partitions: " + parts[4].substring("lost=".length()));
      }
      if (!problems.isEmpty()) {
        problems.add(0, "as " + n + " reports at topology " + parts[1] + " (history "
            + parts[2] + ")");
      }
      return problems;
    }
    return List.of("no live node could report the placement: " + why);
  }

  @Override
  public Client openClient() {
    return new IgniteRegisterClient(shuffledThinAddresses(), transactional);
  }

  /** Every node's thin-client address, shuffled to spread the workers over the nodes. */
  private List<String> shuffledThinAddresses() {
    List<String> addresses = new ArrayList<>(nodes().stream()
        .map(n -> runtime().host(n) + ":" + runtime().port(n, "thin", 10800)).toList());
    synchronized (random) {
      Collections.shuffle(addresses, random);
    }
    return addresses;
  }

  private void note(String line) {
    try {
      Files.writeString(context().dir().resolve("ignite-notes.txt"), line + "\n",
          StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      // notes are for reading later; a run does not fail for want of them
    }
  }

  private static String firstLine(String s) {
    int nl = String.valueOf(s).indexOf('\n');
    return nl < 0 ? String.valueOf(s) : s.substring(0, nl);
  }
}
