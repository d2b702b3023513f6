package io.partkit.kvstore;

import io.partkit.coordinator.ClusterCoordinator;
import io.partkit.coordinator.Coordinators;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.RebalancePlan;
import io.partkit.kvstore.client.KvClient;
import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.LoadMeasure;
import io.partkit.kvstore.migration.KvMigrationExecutor;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import io.partkit.strategy.range.RangeSplits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A coordinator as its own process, for tests that kill it: {@code --store <file> --partitions
 * <n> --members id=host:port,... [--max-concurrent k] [--pause-after STEP] [--replicas r]
 * [--failed id,...] [--request-timeout seconds] [--strategy fixed|tokenring|range] [--vnodes v]
 * [--split-points k1,k2,...] [--split KEY] [--split-size N]}: {@code fixed} (the default) with
 * n partitions and r replicas, {@code tokenring} with v vnodes per node (default 4), whose joins
 * split ranges, or {@code range} cut at the split points, whose range holding KEY is split
 * there first; with {@code --split-size}, the ranges the nodes measure above N keys are split
 * at the median key they report (see {@link #measuredSplits}), and {@code PLAN <splits>
 * <split keys of the planned table>} is printed.
 *
 * <p>It opens the embedded store persisted in the file (a coordinator that died left its pending
 * migrations there; building the coordinator resumes them), joins the members, rebalances,
 * waits until the nodes hold no partition in transit and prints {@code DONE <epoch>}. With
 * {@code --pause-after}, the first migration that reaches that step prints {@code PAUSED <step>
 * <partition> <source> <target> <epoch>} and waits for a line on standard input: the test's
 * deterministic pause point.
 */
public final class CoordinatorProcessMain {

  private CoordinatorProcessMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      o.put(args[i], args[i + 1]);
    }
    Map<NodeId, String> members = new HashMap<>();
    for (String m : o.get("--members").split(",")) {
      String[] kv = m.split("=", 2);
      members.put(NodeId.of(kv[0]), kv[1]);
    }
    int k = Integer.parseInt(o.getOrDefault("--max-concurrent", "2"));
    Duration requestTimeout = Duration.ofSeconds(
        Long.parseLong(o.getOrDefault("--request-timeout", "5")));
    String pauseAfter = o.get("--pause-after");
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    AtomicBoolean paused = new AtomicBoolean();
    MetadataStore store = MetadataStores.embedded(Path.of(o.get("--store")));
    // every node the store knows, failed ones included: their copies are sources
    Map<NodeId, String> addresses = new HashMap<>();
    store.members().members().forEach(m -> addresses.put(m.id(), m.address()));
    addresses.putAll(members);
    KvMigrationExecutor executor = KvMigrationExecutor.builder()
        .addresses(addresses::get).nodes(members::keySet).maxConcurrentMigrations(k)
        .requestTimeout(requestTimeout)
        .stepTimeout(Duration.ofSeconds(20))
        .onStep((m, step) -> {
          if (step.name().equals(pauseAfter) && paused.compareAndSet(false, true)) {
            System.out.println("PAUSED " + step + " " + m.partition() + " " + m.source() + " "
                + m.target() + " " + m.targetEpoch());
            System.out.flush();
            try {
              stdin.readLine();
            } catch (IOException e) {
              throw new IllegalStateException(e);
            }
          }
        }).build();
    Partitioner strategy = Partitioners.load().create(o.getOrDefault("--strategy", "fixed"),
        strategyConfig(o));
    if (o.containsKey("--split")) {
      strategy = splitting(strategy, o.get("--split"));
    }
    if (o.containsKey("--split-size")) {
      strategy = measuredSplits(strategy, Double.parseDouble(o.get("--split-size")),
          addresses::get);
    }
    ClusterCoordinator coordinator = Coordinators.builder().store(store)
        .partitioner(strategy)
        .minClusterSize(1).heartbeatTimeout(Duration.ofHours(1)).migrationExecutor(executor)
        .maxConcurrentMigrations(k).build(); // resumes what a dead predecessor left pending
    for (Map.Entry<NodeId, String> e : members.entrySet()) {
      coordinator.join(new Member(e.getKey(), e.getValue(), 1, "", ""));
    }
    if (o.containsKey("--failed")) {
      // declared failed, as checkFailures() does once a member's heartbeats stop
      for (String id : o.get("--failed").split(",")) {
        coordinator.leave(NodeId.of(id));
      }
    }
    RebalancePlan plan = rebalance(coordinator);
    PartitionAssignment table = store.read().table().orElseThrow();
    if (plan.current().isEmpty()) {
      executor.assignInitial(table);
    }
    awaitQuiet(store, executor, members);
    System.out.println("DONE " + store.read().epoch());
    System.out.flush();
    coordinator.close();
    executor.close();
    store.close();
    System.exit(0);
  }

  /**
   * Rebalances until a plan completes, as an operator's loop would: on a loaded machine a step
   * can time out, and the coordinator then commits what completed and says to rebalance again.
   */
  private static RebalancePlan rebalance(ClusterCoordinator coordinator)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (true) {
      try {
        return coordinator.rebalance();
      } catch (IllegalStateException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        System.err.println("rebalancing again: " + e.getMessage());
        Thread.sleep(500); // a pause between attempts, within the deadline
      }
    }
  }

  private static PartitionerConfig strategyConfig(Map<String, String> o) {
    int replicas = Integer.parseInt(o.getOrDefault("--replicas", "1"));
    if (o.getOrDefault("--strategy", "fixed").equals("range")) {
      return PartitionerConfig.of("split-points", o.get("--split-points"), "replicas", replicas);
    }
    if (o.getOrDefault("--strategy", "fixed").equals("tokenring")) {
      return PartitionerConfig.of("vnodes", Integer.parseInt(o.getOrDefault("--vnodes", "4")),
          "replicas", replicas);
    }
    return PartitionerConfig.of("partitions", Integer.parseInt(o.get("--partitions")),
        "replicas", replicas);
  }

  /**
   * {@code --split KEY} (strategy {@code range}): the range holding KEY is split there by
   * {@link RangeSplits}, as if the store had measured it over the size threshold with KEY as
   * its median, before the strategy places the table; once KEY starts a range, nothing more.
   */
  private static Partitioner splitting(Partitioner range, String key) {
    byte[] at = key.getBytes(StandardCharsets.UTF_8);
    RangeSplits splits = RangeSplits.of(1, Double.POSITIVE_INFINITY, 0);
    return splitBeforePlacing(range, t -> {
      KeyRanges ranges = (KeyRanges) t.scheme();
      double[] sizes = new double[t.partitionCount()];
      java.util.Arrays.fill(sizes, 1); // at the threshold: neither split nor merged
      List<byte[]> medians = new ArrayList<>(java.util.Collections.nCopies(sizes.length,
          (byte[]) null));
      int p = ranges.partitionOfKey(at);
      sizes[p] = 2;
      medians.set(p, at);
      return splits.plan(t, PartitionLoads.of(t.epoch(), sizes), medians).table();
    });
  }

  /**
   * {@code --split-size N} (strategy {@code range}): the loop from measured sizes to a split, as
   * a deployment runs it. Before the strategy places the table, the nodes' load view is read
   * under the previous table ({@link KvClient#load()}), and {@link RangeSplits} plans from the
   * keys each range holds and the median key its primary reports ({@link
   * ClusterLoad#splitKeys()}): a range above N keys is cut at its median, both halves on its
   * replicas; the strategy's placement may then move a half. No merges (merge size 0).
   */
  private static Partitioner measuredSplits(Partitioner range, double splitSize,
      java.util.function.Function<NodeId, String> addresses) {
    RangeSplits splits = RangeSplits.of(splitSize, Double.POSITIVE_INFINITY, 0);
    return splitBeforePlacing(range, t -> {
      ClusterLoad load;
      try (KvClient client = KvClient.builder().tables(() -> t).addresses(addresses).build()) {
        load = client.load();
      }
      RangeSplits.Plan plan = splits.plan(t, load.partitionLoads(LoadMeasure.KEYS),
          load.splitKeys());
      List<String> keys = new ArrayList<>();
      KeyRanges planned = (KeyRanges) plan.table().scheme();
      for (int p = 1; p < plan.table().partitionCount(); p++) {
        keys.add(new String(planned.lowerBound(p), StandardCharsets.UTF_8));
      }
      System.out.println("PLAN " + plan.splits() + " " + String.join(",", keys));
      System.out.flush();
      return plan.table();
    });
  }

  /**
   * {@code range} whose placement starts from {@code split} applied to the previous table when
   * that table is over key ranges: the split is committed with the placement (the coordinator
   * commits a scheme change as metadata first, then migrates).
   */
  private static Partitioner splitBeforePlacing(Partitioner range,
      java.util.function.UnaryOperator<PartitionAssignment> split) {
    return new Partitioner() {
      @Override
      public String name() {
        return range.name();
      }

      @Override
      public PartitionerConfig config() {
        return range.config();
      }

      @Override
      public int replicationFactor() {
        return range.replicationFactor();
      }

      @Override
      public PartitionAssignment place(MembershipView view,
          Optional<PartitionAssignment> previous, int replicas) {
        Optional<PartitionAssignment> base = previous;
        if (previous.isPresent() && previous.get().scheme() instanceof KeyRanges) {
          base = Optional.of(split.apply(previous.get()));
        }
        return range.place(view, base, replicas);
      }
    };
  }

  /** Reconciles until no node holds a partition in transit (a bounded number of rounds). */
  private static void awaitQuiet(MetadataStore store, KvMigrationExecutor executor,
      Map<NodeId, String> members) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    long backoffMillis = 1;
    while (true) {
      executor.reconcile(store.read().table().orElseThrow());
      List<String> transit = new ArrayList<>();
      for (Map.Entry<NodeId, String> e : members.entrySet()) {
        try (TcpNodeClient c = new TcpNodeClient(Wire.parseAddress(e.getValue()),
            Duration.ofSeconds(10))) {
          for (PartitionStatus s : c.list()) {
            if (s.state() != PartitionState.OWNED && s.state() != PartitionState.ABSENT
                && s.state() != PartitionState.BACKUP) {
              transit.add(e.getKey() + ": " + s);
            }
          }
        }
      }
      if (transit.isEmpty()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("nodes still hold partitions in transit after 60 s: "
            + transit);
      }
      // Poll, do not spin: every round opens a connection to every node, and a spinning loop
      // opens thousands a second, whose TIME_WAIT sockets can exhaust loopback's ports and make
      // the very calls that would finish the move fail.
      Thread.sleep(backoffMillis);
      backoffMillis = Math.min(200, backoffMillis * 2);
    }
  }
}
