package io.partkit.harness.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.PartitioningStrategyConfig;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.partkit.backend.hazelcast.PartkitPartitioningStrategy;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One Hazelcast member of the {@code hazelcast} system, as its own JVM so that the nemesis can
 * {@code kill -9} and {@code SIGSTOP} it:
 * {@code --host H --port P --members h:p,h:p,... --cluster NAME --map NAME --backups B
 * --merge-policy CLASS --partitioning hazelcast|partkit [--split-brain-protection MIN]
 * [--property k=v ...]}.
 *
 * <p>It joins by the explicit TCP-IP member list (multicast and auto-detection off, bound to
 * {@code --host} only, so a member in a network namespace is reached only at its own address),
 * prints {@code HAZELCAST MEMBER READY <uuid> <cluster size>} once it has joined, and
 * {@code HAZELCAST MEMBER SAFE} the first time its partition service says the cluster is safe
 * (every partition's replicas in sync), which is how the harness waits for migrations after a
 * join. It then reads standard input: {@code LEAVE} shuts it down gracefully (Hazelcast migrates
 * its partitions away first) and prints {@code HAZELCAST MEMBER LEFT}; the end of input (the
 * harness went away) halts it at once, so that no member outlives the run that started it.
 */
public final class HazelcastMemberMain {

  private HazelcastMemberMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new LinkedHashMap<>();
    List<String> properties = new ArrayList<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("--property")) {
        properties.add(args[i + 1]);
      } else {
        o.put(args[i], args[i + 1]);
      }
    }
    for (String required : List.of("--host", "--port", "--members", "--cluster", "--map")) {
      if (!o.containsKey(required)) {
        System.err.println("usage: HazelcastMemberMain --host H --port P --members h:p,..."
            + " --cluster NAME --map NAME [--backups B] [--merge-policy CLASS]"
            + " [--partitioning hazelcast|partkit] [--property k=v ...]; missing " + required);
        System.exit(2);
      }
    }
    Config config = config(o, properties);
    MapConfig map = config.getMapConfig(o.get("--map"));
    ReceivedCopies received = ReceivedCopies.installOnStart(config,
        map.getBackupCount() + map.getAsyncBackupCount());
    HazelcastInstance hz = Hazelcast.newHazelcastInstance(config);
    hz.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent e) {
        print("HAZELCAST MEMBERS " + e.getMembers().size() + " added " + e.getMember());
      }

      @Override
      public void memberRemoved(MembershipEvent e) {
        print("HAZELCAST MEMBERS " + e.getMembers().size() + " removed " + e.getMember());
      }
    });
    print("HAZELCAST MEMBER READY " + hz.getCluster().getLocalMember().getUuid() + " "
        + hz.getCluster().getMembers().size());
    Thread safe = new Thread(() -> awaitSafe(hz), "partkit-safe");
    safe.setDaemon(true);
    safe.start();

    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    String line;
    while ((line = stdin.readLine()) != null) {
      if (line.trim().equals("LEAVE")) {
        hz.shutdown(); // graceful: returns once its partitions have replicas elsewhere
        print("HAZELCAST MEMBER LEFT");
        System.exit(0);
      }
      if (line.startsWith("REBALANCE ")) {
        String id = line.substring("REBALANCE ".length()).trim();
        // on its own thread: the safety check may wait on other members, and a LEAVE must not
        // wait behind it
        Thread answer = new Thread(() -> print(rebalanceLine(hz, received, id)),
            "partkit-rebalance-" + id);
        answer.setDaemon(true);
        answer.start();
      }
    }
    // the harness is gone: nobody will stop this member otherwise
    Runtime.getRuntime().halt(0);
  }

  /** The member's configuration; see the class comment and {@link HazelcastSystem}. */
  static Config config(Map<String, String> o, List<String> properties) {
    Config c = new Config();
    c.setClusterName(o.get("--cluster"));
    // no call home from a test cluster, and bind to our address only (netns: the node's own)
    c.setProperty("hazelcast.phone.home.enabled", "false");
    c.setProperty("hazelcast.socket.bind.any", "false");
    for (String p : properties) {
      int eq = p.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--property needs k=v: " + p);
      }
      c.setProperty(p.substring(0, eq), p.substring(eq + 1));
    }
    NetworkConfig net = c.getNetworkConfig();
    net.setPort(Integer.parseInt(o.get("--port"))).setPortAutoIncrement(false);
    net.getInterfaces().setEnabled(true).addInterface(o.get("--host"));
    JoinConfig join = net.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(List.of(o.get("--members").split(",")));

    MapConfig map = c.getMapConfig(o.get("--map"));
    map.setBackupCount(Integer.parseInt(o.getOrDefault("--backups", "1")));
    map.setAsyncBackupCount(0);
    // the merge policies that compare entries (LatestUpdate, LatestAccess, HigherHits,
    // ExpirationTime) refuse to start without per-entry statistics
    map.setPerEntryStatsEnabled(true);
    if (o.containsKey("--merge-policy")) {
      map.getMergePolicyConfig().setPolicy(o.get("--merge-policy"));
    }
    if (o.containsKey("--split-brain-protection")) {
      // the map refuses operations on a member whose cluster has fewer members than this
      // (noticed only once the heartbeats have timed out)
      c.addSplitBrainProtectionConfig(new SplitBrainProtectionConfig("partkit-protection", true,
          Integer.parseInt(o.get("--split-brain-protection"))));
      map.setSplitBrainProtectionName("partkit-protection");
    }
    String partitioning = o.getOrDefault("--partitioning", "hazelcast");
    if (partitioning.equals("partkit")) {
      // Hazelcast's default 271 partitions: the harness's clients use the same strategy
      // (HazelcastClientPartitioning), which has no way to learn another count
      map.setPartitioningStrategyConfig(
          new PartitioningStrategyConfig(PartkitPartitioningStrategy.defaults()));
    } else if (!partitioning.equals("hazelcast")) {
      throw new IllegalArgumentException("--partitioning must be hazelcast or partkit: "
          + partitioning);
    }
    return c;
  }

  /** The answer to {@code REBALANCE <id>}; see the class comment. */
  private static String rebalanceLine(HazelcastInstance hz, ReceivedCopies received, String id) {
    try {
      boolean migrating = ReceivedCopies.partitionService(hz).hasOnGoingMigrationLocal();
      boolean safe = hz.getPartitionService().isLocalMemberSafe();
      List<String> members = new ArrayList<>();
      for (Member m : hz.getCluster().getMembers()) {
        members.add(m.getAddress().getHost() + ":" + m.getAddress().getPort());
      }
      return "HAZELCAST REBALANCE " + id + " " + received.totals() + " migrating=" + migrating
          + " safe=" + safe + " members=" + String.join(",", members);
    } catch (RuntimeException e) {
      // shutting down, or the instance is not active: the harness reads it as not settled
      return "HAZELCAST REBALANCE " + id + " error=" + e.getClass().getSimpleName();
    }
  }

  /** Prints SAFE once the cluster's partitions are all in sync (bounded by the process's life). */
  private static void awaitSafe(HazelcastInstance hz) {
    try {
      while (!hz.getPartitionService().isClusterSafe()) {
        Thread.sleep(200); // polling the member's own state; the harness bounds the wait
      }
      print("HAZELCAST MEMBER SAFE");
    } catch (InterruptedException | RuntimeException e) {
      // shutting down: nobody waits for SAFE any more
    }
  }

  private static void print(String line) {
    synchronized (System.out) {
      System.out.println(line);
      System.out.flush();
    }
  }
}
