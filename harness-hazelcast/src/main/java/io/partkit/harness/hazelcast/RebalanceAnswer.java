package io.partkit.harness.hazelcast;

import io.partkit.harness.system.Capability.Received;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One member's answer to {@code REBALANCE <id>} (see {@link HazelcastMemberMain}), and the
 * decision, from every member's answer, whether Hazelcast says its rebalance is done.
 *
 * @param received what the member received to create copies since it started
 * @param migrating a migration runs on the member
 * @param safe the member's partition service says it is safe
 * @param members the members it sees, {@code host:port}
 * @param error why the member could not answer (shutting down), or null
 */
record RebalanceAnswer(Received received, boolean migrating, boolean safe, List<String> members,
    String error) {

  static final String PREFIX = "HAZELCAST REBALANCE ";

  RebalanceAnswer {
    members = List.copyOf(members);
  }

  /**
   * Reads the answer line of request {@code id}.
   *
   * @throws IllegalArgumentException when it is not one, naming what is wrong
   */
  static RebalanceAnswer parse(String id, String line) {
    String head = PREFIX + id + " ";
    if (!line.startsWith(head)) {
      throw new IllegalArgumentException("not the answer to REBALANCE " + id + ": '" + line
          + "'; expected it to begin with '" + head + "'");
    }
    Map<String, String> fields = new HashMap<>();
    for (String field : line.substring(head.length()).trim().split(" +")) {
      int eq = field.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("field '" + field + "' of '" + line
            + "' is not name=value");
      }
      fields.put(field.substring(0, eq), field.substring(eq + 1));
    }
    if (fields.containsKey("error")) {
      return new RebalanceAnswer(new Received(0, 0, 0), false, false, List.of(),
          fields.get("error"));
    }
    for (String name : List.of("keys", "bytes", "partitions", "migrating", "safe", "members")) {
      if (!fields.containsKey(name)) {
        throw new IllegalArgumentException("'" + line + "' has no " + name + "=");
      }
    }
    Received received = new Received(number(fields, "keys", line), number(fields, "bytes", line),
        number(fields, "partitions", line));
    String members = fields.get("members");
    return new RebalanceAnswer(received, Boolean.parseBoolean(fields.get("migrating")),
        Boolean.parseBoolean(fields.get("safe")),
        members.isEmpty() ? List.of() : List.of(members.split(",")), null);
  }

  private static long number(Map<String, String> fields, String name, String line) {
    try {
      return Long.parseLong(fields.get(name));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + "=" + fields.get(name) + " in '" + line
          + "' is not a whole number", e);
    }
  }

  /**
   * What is still going on, or empty when Hazelcast says the rebalance is done: every member that
   * should run ({@code expected}, node to {@code host:port}) runs, answered, sees exactly the
   * expected members (so a killed member the failure detector has not removed yet keeps it
   * going), has no migration running and says it is safe.
   *
   * @param answers the answer of each expected member that runs and answered
   */
  static Optional<String> stillGoing(Map<String, String> expected,
      Map<String, RebalanceAnswer> answers) {
    Set<String> wanted = new LinkedHashSet<>(expected.values());
    List<String> going = new ArrayList<>();
    for (Map.Entry<String, String> e : expected.entrySet()) {
      String node = e.getKey();
      RebalanceAnswer a = answers.get(node);
      if (a == null) {
        going.add(node + " does not answer");
        continue;
      }
      if (a.error() != null) {
        going.add(node + ": " + a.error());
        continue;
      }
      if (!new LinkedHashSet<>(a.members()).equals(wanted)) {
        Set<String> extra = new LinkedHashSet<>(a.members());
        extra.removeAll(wanted);
        Set<String> missing = new LinkedHashSet<>(wanted);
        missing.removeAll(a.members());
        going.add(node + " sees " + a.members().size() + " members"
            + (extra.isEmpty() ? "" : ", still " + extra)
            + (missing.isEmpty() ? "" : ", not yet " + missing));
      }
      if (a.migrating()) {
        going.add(node + " migrating");
      }
      if (!a.safe()) {
        going.add(node + " not safe");
      }
    }
    return going.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", going));
  }
}
