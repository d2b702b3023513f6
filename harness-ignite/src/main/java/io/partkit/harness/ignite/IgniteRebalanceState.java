package io.partkit.harness.ignite;

import io.partkit.harness.system.Capability.Received;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One node's answer to {@code REBALANCE} ({@link IgniteRebalanceCounters#report}), and the
 * decision whether the cluster's rebalance is done, in pure code.
 *
 * @param received what the node received by rebalancing since it started
 * @param topology the discovery topology version the node is at
 * @param readyMajor the topology version whose partition exchange finished on the node
 * @param left partitions left of the node's current rebalance (stale once it was cancelled)
 * @param moving partitions MOVING on the node: copies it is still creating
 * @param clusterMoving partitions MOVING anywhere, as the node's partition map says
 * @param cacheStarted false before the cache started on the node (no metrics yet)
 */
record IgniteRebalanceState(Received received, long topology, long readyMajor, long left,
    long moving, long clusterMoving, boolean cacheStarted) {

  /**
   * Parses {@code REBALANCE keys=.. bytes=.. partitions=.. topology=.. ready=major.minor left=..
   * moving=.. cluster-moving=.. group=true|false}.
   *
   * @throws IllegalArgumentException naming what is missing or malformed
   */
  static IgniteRebalanceState parse(String line) {
    String[] parts = line.trim().split(" ");
    if (parts.length < 2 || !parts[0].equals("REBALANCE")) {
      throw new IllegalArgumentException("expected REBALANCE key=value ...: " + line);
    }
    Map<String, String> values = new HashMap<>();
    for (int i = 1; i < parts.length; i++) {
      String[] kv = parts[i].split("=", 2);
      if (kv.length != 2) {
        throw new IllegalArgumentException("expected key=value at '" + parts[i] + "' in: " + line);
      }
      values.put(kv[0], kv[1]);
    }
    try {
      String ready = require(values, "ready", line);
      int dot = ready.indexOf('.');
      return new IgniteRebalanceState(
          new Received(number(values, "keys", line), number(values, "bytes", line),
              number(values, "partitions", line)),
          number(values, "topology", line),
          Long.parseLong(dot < 0 ? ready : ready.substring(0, dot)),
          number(values, "left", line), number(values, "moving", line),
          number(values, "cluster-moving", line),
          Boolean.parseBoolean(require(values, "group", line)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a number in: " + line, e);
    }
  }

  private static String require(Map<String, String> values, String key, String line) {
    String v = values.get(key);
    if (v == null) {
      throw new IllegalArgumentException("no " + key + "= in: " + line);
    }
    return v;
  }

  private static long number(Map<String, String> values, String key, String line) {
    return Long.parseLong(require(values, key, line));
  }

  /**
   * What is still going on, or empty when the rebalance is done: every expected node answered,
   * sees exactly the expected servers (so a killed node still counts until Ignite's failure
   * detector removed it), finished the partition exchange of its current topology (before it,
   * the new copies are not even planned) and has no MOVING partition, and no node knows of one
   * anywhere.
   *
   * @param expected the servers that should be in the cluster (not left, not crashed)
   * @param topologies each answering node's view of the servers
   * @param states each answering node's {@code REBALANCE} answer
   */
  static Optional<String> stillGoing(Set<String> expected, Map<String, Set<String>> topologies,
      Map<String, IgniteRebalanceState> states) {
    List<String> going = new ArrayList<>();
    for (String n : expected.stream().sorted().toList()) {
      Set<String> seen = topologies.get(n);
      IgniteRebalanceState s = states.get(n);
      if (seen == null || s == null) {
        going.add(n + " does not answer");
      } else if (!seen.equals(expected)) {
        going.add(n + " sees " + seen.stream().sorted().toList());
      } else if (!s.cacheStarted()) {
        going.add(n + " has not started the cache");
      } else if (s.readyMajor() != s.topology()) {
        going.add(n + " exchanges partitions (topology " + s.topology() + ", ready "
            + s.readyMajor() + ")");
      } else if (s.moving() > 0 || s.clusterMoving() > 0) {
        going.add(n + " rebalances (" + s.moving() + " partitions moving here, "
            + s.clusterMoving() + " in the cluster)");
      }
    }
    return going.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", going));
  }
}
