package io.partkit.harness.ignite;

import io.partkit.backend.ignite.PartkitAffinityFunction;
import io.partkit.spi.PartitionerConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteState;
import org.apache.ignite.Ignition;
import org.apache.ignite.ShutdownPolicy;
import org.apache.ignite.cache.CacheAtomicityMode;
import org.apache.ignite.cache.CacheMode;
import org.apache.ignite.cache.CacheWriteSynchronizationMode;
import org.apache.ignite.cache.PartitionLossPolicy;
import org.apache.ignite.cache.affinity.Affinity;
import org.apache.ignite.cache.affinity.AffinityFunction;
import org.apache.ignite.cache.affinity.rendezvous.RendezvousAffinityFunction;
import org.apache.ignite.cluster.ClusterNode;
import org.apache.ignite.configuration.CacheConfiguration;
import org.apache.ignite.configuration.ClientConnectorConfiguration;
import org.apache.ignite.configuration.DataRegionConfiguration;
import org.apache.ignite.configuration.DataStorageConfiguration;
import org.apache.ignite.configuration.IgniteConfiguration;
import org.apache.ignite.events.Event;
import org.apache.ignite.failure.StopNodeFailureHandler;
import org.apache.ignite.lang.IgnitePredicate;
import org.apache.ignite.spi.communication.tcp.TcpCommunicationSpi;
import org.apache.ignite.spi.discovery.tcp.TcpDiscoverySpi;
import org.apache.ignite.spi.discovery.tcp.ipfinder.vm.TcpDiscoveryVmIpFinder;

/**
 * One Ignite 2.x server node of the {@code ignite} system, as a process of its own so that the
 * nemesis can kill, pause and cut it like any other node.
 *
 * <p>It prints {@code IGNITE READY <consistentId> <topologyVersion>} once it joined the topology,
 * then answers one-line commands on standard input, each with one line on standard output (the
 * harness has no client node, and a thin client cannot see affinity):
 * <ul>
 *   <li>{@code CREATE}: creates the register cache (idempotent): {@code CACHE <topVer>};
 *   <li>{@code TOPOLOGY}: this node's view of the servers: {@code TOPOLOGY <topVer> a,b,c};
 *   <li>{@code PLACEMENT <fromVersion>}: the server sets of every topology version since
 *       {@code fromVersion} from this node's discovery history, then the owners of every
 *       partition, primary first, and the lost partitions:
 *       {@code PLACEMENT <topVer> <v>=a,b;<v>=a,b,c a,b|b,c|... lost=3,9} ({@code lost=-}), or
 *       {@code PLACEMENT incomplete <why>} when the history does not reach back;
 *   <li>{@code REBALANCE}: what this node received by rebalancing the register cache since it
 *       started, by Ignite's own metrics, and whether it is rebalancing now
 *       ({@link IgniteRebalanceCounters#report}): {@code REBALANCE keys=.. bytes=..
 *       partitions=.. topology=.. ready=.. left=.. moving=.. cluster-moving=.. group=..};
 *   <li>{@code STOP}: a graceful leave ({@link ShutdownPolicy#GRACEFUL}: Ignite waits until
 *       every partition has a copy elsewhere), then exit.
 * </ul>
 * End of input (the harness went away) stops the node at once, so that no node outlives the run
 * that started it; so does Ignite stopping the node itself (a segmentation, the failure
 * handler): the process exits, which the harness sees as a dead node.
 */
public final class IgniteNodeMain {

  /** The register cache's name. */
  static final String CACHE = "registers";

  private IgniteNodeMain() {}

  /**
   * Arguments: {@code --id --host --disco --comm --thin --peers host:port,...} and the cache's
   * {@code --affinity partkit-fixed|partkit-rendezvous|native --partitions --backups
   * --atomicity atomic|transactional --read-from-backup true|false
   * --write-sync full-sync|primary-sync|full-async} (all given: {@link IgniteSystem#cacheArgs}),
   * optionally {@code --failure-detection <ms>}.
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> a = parse(args);
    String id = a.get("id");
    CacheConfiguration<Long, Long> cache = cache(a);
    IgniteRebalanceCounters rebalanced = new IgniteRebalanceCounters(CACHE);
    Ignite ignite = Ignition.start(config(a, rebalanced));
    Thread watchdog = new Thread(() -> exitWhenStopped(ignite.name()), "stopped-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    System.out.println("IGNITE READY " + id + " " + ignite.cluster().topologyVersion());
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] cmd = line.trim().split(" ");
      String reply;
      try {
        reply = switch (cmd[0]) {
          case "CREATE" -> {
            ignite.getOrCreateCache(cache);
            yield "CACHE " + ignite.cluster().topologyVersion();
          }
          case "TOPOLOGY" -> "TOPOLOGY " + ignite.cluster().topologyVersion() + " "
              + ids(ignite.cluster().forServers().nodes());
          case "PLACEMENT" -> placement(ignite, Long.parseLong(cmd[1]));
          case "REBALANCE" -> rebalanced.report();
          case "STOP" -> {
            Ignition.stop(ignite.name(), false);
            System.out.println("STOPPED " + id);
            System.out.flush();
            System.exit(0);
            yield "";
          }
          default -> "ERROR unknown command " + line;
        };
      } catch (RuntimeException e) {
        reply = "ERROR " + cmd[0] + " " + String.valueOf(e).replace('\n', ' ');
      }
      System.out.println(reply);
      System.out.flush();
    }
    // the harness is gone: nothing will stop this node otherwise
    Runtime.getRuntime().halt(0);
  }

  /** Ignite stops a segmented or failed node but leaves the JVM running: exit with it. */
  private static void exitWhenStopped(String name) {
    while (Ignition.state(name) == IgniteState.STARTED) {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        return;
      }
    }
    System.out.println("IGNITE STOPPED " + Ignition.state(name));
    System.out.flush();
    Runtime.getRuntime().halt(3);
  }

  private static String placement(Ignite ignite, long from) {
    long now = ignite.cluster().topologyVersion();
    List<String> history = new ArrayList<>();
    for (long v = from; v <= now; v++) {
      Collection<ClusterNode> nodes = ignite.cluster().topology(v);
      if (nodes == null) {
        return "PLACEMENT incomplete version " + v + " is not in the history of a node that "
            + "joined later";
      }
      history.add(v + "=" + ids(nodes.stream().filter(n -> !n.isClient()).toList()));
    }
    Affinity<Long> affinity = ignite.affinity(CACHE);
    List<String> owners = new ArrayList<>();
    for (int p = 0; p < affinity.partitions(); p++) {
      owners.add(affinity.mapPartitionToPrimaryAndBackups(p).stream()
          .map(n -> String.valueOf(n.consistentId())).collect(Collectors.joining(",")));
    }
    String lost = ignite.cache(CACHE).lostPartitions().stream().sorted().map(String::valueOf)
        .collect(Collectors.joining(","));
    return "PLACEMENT " + now + " " + String.join(";", history) + " " + String.join("|", owners)
        + " lost=" + (lost.isEmpty() ? "-" : lost);
  }

  private static String ids(Collection<ClusterNode> nodes) {
    return nodes.stream().map(n -> String.valueOf(n.consistentId())).sorted()
        .collect(Collectors.joining(","));
  }

  static Map<String, String> parse(String[] args) {
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --name value pairs: " + List.of(args));
      }
      a.put(args[i].substring(2), args[i + 1]);
    }
    return a;
  }

  /** The register cache: a partitioned cache of Long -> Long with the run's options. */
  static CacheConfiguration<Long, Long> cache(Map<String, String> a) {
    return new CacheConfiguration<Long, Long>(CACHE)
        .setCacheMode(CacheMode.PARTITIONED)
        .setBackups(Integer.parseInt(a.get("backups")))
        .setAtomicityMode(a.get("atomicity").equals("transactional")
            ? CacheAtomicityMode.TRANSACTIONAL : CacheAtomicityMode.ATOMIC)
        // FULL_SYNC (the harness's default; Ignite's own is PRIMARY_SYNC): an acknowledged write
        // is on every copy, so a lost copy is then Ignite's loss, not ours
        .setWriteSynchronizationMode(writeSync(required(a, "write-sync")))
        // Ignite's default (IGNORE) would answer null for a key of a lost partition; make it
        // refuse instead, so a loss shows as failed operations rather than silent empty reads
        .setPartitionLossPolicy(PartitionLossPolicy.READ_WRITE_SAFE)
        // true (Ignite's default) lets a node that holds a backup answer a get from it
        .setReadFromBackup(Boolean.parseBoolean(required(a, "read-from-backup")))
        .setAffinity(affinity(a.get("affinity"), Integer.parseInt(a.get("partitions"))));
  }

  private static String required(Map<String, String> a, String name) {
    String value = a.get(name);
    if (value == null) {
      throw new IllegalArgumentException("--" + name + " is required: " + a.keySet());
    }
    return value;
  }

  /** {@code full-sync}, {@code primary-sync} or {@code full-async}: Ignite's three modes. */
  static CacheWriteSynchronizationMode writeSync(String name) {
    return switch (name) {
      case "full-sync" -> CacheWriteSynchronizationMode.FULL_SYNC;
      case "primary-sync" -> CacheWriteSynchronizationMode.PRIMARY_SYNC;
      case "full-async" -> CacheWriteSynchronizationMode.FULL_ASYNC;
      default -> throw new IllegalArgumentException("write-sync must be full-sync, primary-sync "
          + "or full-async: " + name);
    };
  }

  static AffinityFunction affinity(String name, int partitions) {
    return switch (name) {
      case "partkit-fixed" ->
          PartkitAffinityFunction.of("fixed", PartitionerConfig.of("partitions", partitions));
      case "partkit-rendezvous" ->
          PartkitAffinityFunction.of("rendezvous", PartitionerConfig.of("partitions", partitions));
      case "native" -> new RendezvousAffinityFunction(false, partitions);
      default -> throw new IllegalArgumentException("affinity must be partkit-fixed, "
          + "partkit-rendezvous or native: " + name);
    };
  }

  private static IgniteConfiguration config(Map<String, String> a,
      IgniteRebalanceCounters rebalanced) {
    String host = a.get("host");
    IgniteConfiguration config = new IgniteConfiguration()
        // unique per process, and the consistent id is partkit's NodeId: stable across restarts
        .setIgniteInstanceName("partkit-" + a.get("id"))
        .setConsistentId(a.get("id"))
        .setWorkDirectory(Path.of(a.get("work")).toAbsolutePath().toString())
        // a node Ignite considers broken stops (and this process exits) instead of halting
        // silently or hanging: the harness then sees a dead node
        .setFailureHandler(new StopNodeFailureHandler())
        // a leave (STOP) waits until the node's partitions have copies elsewhere; a kill -9 is
        // the nemesis' other fault
        .setShutdownPolicy(ShutdownPolicy.GRACEFUL)
        .setMetricsLogFrequency(0)
        // the rebalance's start and end only (one each per rebalance of a cache), for the
        // counters of what this node received; Ignite records no event type unless told
        .setIncludeEventTypes(IgniteRebalanceCounters.EVENTS)
        .setLocalEventListeners(
            Map.<IgnitePredicate<? extends Event>, int[]>of(rebalanced,
                IgniteRebalanceCounters.EVENTS))
        .setLocalHost(host)
        .setConnectorConfiguration(null)
        .setClientConnectorConfiguration(new ClientConnectorConfiguration().setHost(host)
            .setPort(Integer.parseInt(a.get("thin"))).setPortRange(0).setThreadPoolSize(4))
        .setPublicThreadPoolSize(2)
        .setSystemThreadPoolSize(4)
        .setStripedPoolSize(2)
        .setQueryThreadPoolSize(1)
        .setServiceThreadPoolSize(1)
        .setDataStreamerThreadPoolSize(1)
        .setManagementThreadPoolSize(1)
        .setPeerClassLoadingThreadPoolSize(1)
        .setUtilityCachePoolSize(1)
        .setAsyncCallbackPoolSize(1)
        .setRebalanceThreadPoolSize(1)
        .setDataStorageConfiguration(new DataStorageConfiguration()
            .setDefaultDataRegionConfiguration(new DataRegionConfiguration()
                .setInitialSize(32L << 20)
                .setMaxSize(Long.parseLong(a.getOrDefault("region-mb", "64")) << 20)));
    if (a.containsKey("failure-detection")) {
      config.setFailureDetectionTimeout(Long.parseLong(a.get("failure-detection")));
    }
    // every node's exact discovery address: the ports are the runtime's, one per node
    config.setDiscoverySpi(new TcpDiscoverySpi()
        .setLocalAddress(host)
        .setLocalPort(Integer.parseInt(a.get("disco"))).setLocalPortRange(0)
        .setIpFinder(new TcpDiscoveryVmIpFinder().setAddresses(List.of(a.get("peers")
            .split(",")))));
    TcpCommunicationSpi communication = new TcpCommunicationSpi();
    communication.setLocalAddress(host);
    communication.setLocalPort(Integer.parseInt(a.get("comm")));
    communication.setLocalPortRange(0);
    config.setCommunicationSpi(communication);
    return config;
  }
}
