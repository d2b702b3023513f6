package io.partkit.harness.kv;

import io.partkit.coordinator.ClusterCoordinator;
import io.partkit.coordinator.Coordinators;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.RebalancePlan;
import io.partkit.coordinator.etcd.EtcdMetadataStores;
import io.partkit.kvstore.EventLine;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.kvstore.migration.KvMigrationExecutor;
import io.partkit.kvstore.migration.MigrationStep;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionerConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The kv system's coordinator as its own process, so the nemesis can {@code kill -9} it between
 * recording a migration and committing it:
 * {@code --store <file> --partitions <n> --members id=host:port,... [--addresses id=host:port,...]
 * [--max-concurrent k] [--replicas r] [--strategy fixed|rendezvous|range|tokenring]
 * [--etcd url,... --etcd-prefix /p] [--secret-file f] [--replica-timeout-ms ms]}.
 * The strategy is {@code fixed} unless given; see {@link #strategyConfig} for what each is given.
 * {@code --addresses} names every node that may hold data, members or not (a restarted coordinator
 * must still reach a node that left to finish moving its partitions off it).
 *
 * <p>It opens the embedded metadata store persisted in the file, or etcd's (building the
 * coordinator resumes whatever a killed predecessor left pending), converges the membership to
 * {@code --members}, rebalances, waits until no migration is pending and prints
 * {@code READY <epoch>}. Then every line {@code MEMBERS id=host:port,...} on standard input
 * converges the membership to that list the same way and prints {@code DONE <epoch>}. Each
 * migration step prints {@code STEP <step> <partition> <source> <target> <epoch>}, and a move of
 * a partition with copies also {@code REPLICAS <partition> <source> <target> <epoch>} as it starts
 * (see {@link #replicasLine}), which is how the harness catches a migration in flight. One line
 * per command keeps the protocol trivially robust to a restart: after a kill the harness starts a
 * new process with the membership it wants and nothing else to replay.
 */
public final class KvCoordinatorMain {

  private static final Duration QUIET_TIMEOUT = Duration.ofSeconds(90);
  /** How often the replica sets are reviewed for suspected backups. */
  private static final Duration REVIEW_INTERVAL = Duration.ofMillis(250);

  private KvCoordinatorMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      o.put(args[i], args[i + 1]);
    }
    if (!o.containsKey("--store")
        || !o.containsKey("--partitions")
        || !o.containsKey("--members")) {
      System.err.println("usage: KvCoordinatorMain --store <file> --partitions <n>"
          + " --members id=host:port,... [--max-concurrent k]");
      System.exit(2);
    }
    // Every node's address, members or not: a node that left may still hold data to move off it.
    Map<NodeId, String> addresses = new ConcurrentHashMap<>(parseMembers(o.get("--members")));
    addresses.putAll(parseMembers(o.getOrDefault("--addresses", "")));
    int k = Integer.parseInt(o.getOrDefault("--max-concurrent", "2"));
    int replicas = Integer.parseInt(o.getOrDefault("--replicas", "1"));
    // The embedded store persisted in a file, or etcd when --etcd names its client URLs.
    MetadataStore store = o.containsKey("--etcd")
        ? EtcdMetadataStores.builder().endpoints(List.of(o.get("--etcd").split(",")))
            .prefix(o.getOrDefault("--etcd-prefix", "/partkit")).build()
        : MetadataStores.embedded(Path.of(o.get("--store")));
    // A node that left keeps its address here: a migration off it may still need it to drop.
    KvMigrationExecutor.Builder executorBuilder = KvMigrationExecutor.builder();
    if (o.containsKey("--secret-file")) {
      executorBuilder.secret(SharedSecret.read(Path.of(o.get("--secret-file"))));
    }
    if (o.containsKey("--replica-timeout-ms")) { // the nodes' (KvSystem validated it)
      executorBuilder.replicaTimeout(
          Duration.ofMillis(Long.parseLong(o.get("--replica-timeout-ms"))));
    }
    // The executor reads no store: addresses from here, the members as nodes to reconcile.
    KvMigrationExecutor executor = executorBuilder.nodes(() -> store.members().ids())
        .addresses(addresses::get).maxConcurrentMigrations(k).stepTimeout(Duration.ofSeconds(15))
        .onStep((m, step) -> {
          print("STEP " + step + " " + m.partition() + " " + m.source() + " " + m.target() + " "
              + m.targetEpoch());
          if (step == MigrationStep.PLANNED) {
            replicasLine(m).ifPresent(KvCoordinatorMain::print);
          }
        })
        .onEvent(KvCoordinatorMain::print)
        .build();
    String strategy = o.getOrDefault("--strategy", "fixed");
    ClusterCoordinator coordinator = Coordinators.builder().store(store)
        .strategy(strategy, strategyConfig(strategy, Integer.parseInt(o.get("--partitions")),
            replicas))
        .minClusterSize(1).heartbeatTimeout(Duration.ofDays(1)).migrationExecutor(executor)
        .maxConcurrentMigrations(k).build();
    converge(coordinator, store, executor, addresses, parseMembers(o.get("--members")));
    print("READY " + store.read().epoch());
    startReviews(coordinator);
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    String line;
    while ((line = stdin.readLine()) != null) {
      if (line.startsWith("MEMBERS ")) {
        Map<NodeId, String> wanted = parseMembers(line.substring("MEMBERS ".length()).trim());
        addresses.putAll(wanted);
        converge(coordinator, store, executor, addresses, wanted);
        print("DONE " + store.read().epoch());
      } else if (!line.isBlank()) {
        print("ERROR unknown command: " + line);
      }
    }
    // standard input closed: the harness is gone
    coordinator.close();
    executor.close();
    store.close();
    System.exit(0);
  }

  private static void converge(ClusterCoordinator coordinator, MetadataStore store,
      KvMigrationExecutor executor, Map<NodeId, String> addresses, Map<NodeId, String> wanted)
      throws InterruptedException {
    for (Member m : coordinator.membership().members()) {
      if (!wanted.containsKey(m.id())) {
        coordinator.leave(m.id());
      }
    }
    for (Map.Entry<NodeId, String> e : wanted.entrySet()) {
      if (coordinator.membership().find(e.getKey()).isEmpty()) {
        coordinator.join(new Member(e.getKey(), e.getValue(), 1, "", ""));
      }
    }
    boolean first = store.read().table().isEmpty();
    long deadline = System.nanoTime() + QUIET_TIMEOUT.toNanos();
    long backoffMillis = 10;
    while (true) {
      try {
        RebalancePlan plan = coordinator.rebalance();
        if (first && plan.current().isEmpty()) {
          executor.assignInitial(store.read().table().orElseThrow());
        }
        break;
      } catch (IllegalStateException e) {
        // Some migrations rolled back (a node was paused, killed or cut off, or still holds a
        // partition an earlier move has not dropped yet): the table is consistent, so settle the
        // nodes and plan again, as the coordinator's message says.
        print("WARN " + e.getMessage());
        if (System.nanoTime() > deadline) {
          print("WARN giving up on this membership change after " + QUIET_TIMEOUT);
          break;
        }
        awaitQuiet(store, executor);
        Thread.sleep(backoffMillis); // polling a condition with a deadline
        backoffMillis = Math.min(1000, backoffMillis * 2);
      }
    }
    awaitQuiet(store, executor);
  }

  /** Reconciles until nothing is pending and the nodes need no more steps (bounded). */
  private static void awaitQuiet(MetadataStore store, KvMigrationExecutor executor)
      throws InterruptedException {
    long deadline = System.nanoTime() + QUIET_TIMEOUT.toNanos();
    long backoffMillis = 1;
    while (true) {
      int issued;
      try {
        issued = executor.reconcile(store.read().table().orElseThrow());
      } catch (RuntimeException e) {
        issued = -1; // a node is unreachable (killed, paused, cut off): try again
      }
      if (issued == 0 && store.read().pending().isEmpty()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        print("WARN still migrating after " + QUIET_TIMEOUT + ": " + store.read().pending());
        return;
      }
      Thread.sleep(backoffMillis); // polling a condition, not waiting out a race
      backoffMillis = Math.min(200, backoffMillis * 2);
    }
  }

  /**
   * Reviews the replica sets every {@link #REVIEW_INTERVAL}: backups their primaries cannot
   * reach are taken out, and joined again once they can be ({@link
   * ClusterCoordinator#reviewReplicas}). Each removal prints {@code REMOVED <partition=[nodes]>
   * <epoch>}.
   */
  private static void startReviews(ClusterCoordinator coordinator) {
    Thread t = new Thread(() -> {
      String lastFailure = null;
      while (!Thread.currentThread().isInterrupted()) {
        try {
          Map<Integer, java.util.Set<NodeId>> removed = coordinator.reviewReplicas();
          if (!removed.isEmpty()) {
            print("REMOVED " + removed + " " + coordinator.table().map(
                io.partkit.spi.PartitionAssignment::epoch).orElse(-1L));
          }
          lastFailure = null;
        } catch (RuntimeException e) {
          // a node or the store did not answer, or the coordinator is closing: next round.
          // Said once per kind in a row, dated like the events: a review that keeps failing
          // is a stall's cause to read in coord.log.
          String failure = e.getClass().getSimpleName() + ": " + e.getMessage();
          if (!failure.equals(lastFailure)) {
            print(EventLine.time(Clock.systemUTC()) + " coordinator: review failed: " + failure);
          }
          lastFailure = failure;
        }
        try {
          Thread.sleep(REVIEW_INTERVAL.toMillis()); // a timer, like a failure detector's
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "kv-replica-review");
    t.setDaemon(true);
    t.start();
  }

  /**
   * For a move of a partition with copies, which changes its replica list (no FENCED step):
   * {@code REPLICAS <partition> <source> <target> <epoch>}, the old primary, which serves and
   * streams to the joining copy, and the first node that joins the list (or the new primary when
   * the same nodes only change order). Printed as the move starts, before the copy and the
   * reconfiguration's fence, so a fault aimed at the two lands while it is in flight. Nothing
   * when no node joins and the primary stays (a copy only leaves).
   */
  static Optional<String> replicasLine(Migration m) {
    if (m.sourceReplicas().size() < 2 && m.targetReplicas().size() < 2) {
      return Optional.empty(); // moved with a fence: STEP FENCED says it
    }
    NodeId source = m.sourceReplicas().get(0);
    NodeId target = m.targetReplicas().stream().filter(n -> !m.sourceReplicas().contains(n))
        .findFirst().orElse(m.targetReplicas().get(0));
    if (target.equals(source)) {
      return Optional.empty();
    }
    return Optional.of("REPLICAS " + m.partition() + " " + source + " " + target + " "
        + m.targetEpoch());
  }

  /**
   * What the kv system gives {@code strategy}: {@code fixed}, {@code rendezvous} and {@code
   * range} cut the keys into {@code partitions} (range: even over the keys' first 8 bytes);
   * {@code tokenring} has no partition count (its ranges follow the tokens), and gets
   * Cassandra's default since 4.0, 16 tokens per node from the allocator, which spreads them
   * evenly with few ranges.
   *
   * @throws IllegalArgumentException for a strategy the kv system does not run
   */
  static PartitionerConfig strategyConfig(String strategy, int partitions, int replicas) {
    return switch (strategy) {
      case "fixed", "rendezvous", "range" ->
          PartitionerConfig.of("partitions", partitions, "replicas", replicas);
      case "tokenring" ->
          PartitionerConfig.of("tokens", "allocator", "vnodes", 16, "replicas", replicas);
      default -> throw new IllegalArgumentException("--strategy must be one of fixed,"
          + " rendezvous, range, tokenring, not '" + strategy + "'");
    };
  }

  private static Map<NodeId, String> parseMembers(String list) {
    Map<NodeId, String> members = new LinkedHashMap<>();
    if (list.isEmpty()) {
      return members;
    }
    for (String m : list.split(",")) {
      String[] kv = m.split("=", 2);
      if (kv.length != 2) {
        throw new IllegalArgumentException("a member is id=host:port: " + m);
      }
      members.put(NodeId.of(kv[0]), kv[1]);
    }
    return members;
  }

  private static synchronized void print(String line) {
    System.out.println(line);
    System.out.flush();
  }

}
