package io.partkit.harness.runtime;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A partition as nftables rules inside one node's own network stack, shared by the runtimes that
 * give each node one (network namespaces, containers): the grudging node drops input from the
 * addresses of the nodes it holds a grudge against. Only node addresses are ever listed, so the
 * harness's own address (its clients and coordinators) always gets through.
 */
final class NftCut {

  /** The table partkit owns in a node's network namespace; nothing else there is touched. */
  static final String TABLE = "inet partkit";

  private NftCut() {}

  /**
   * The nft script that replaces {@code node}'s table with its part of {@code grudge}, as one
   * transaction: "table" makes sure the table exists so that "delete" cannot fail, then the new
   * cut (if any) is added. An empty grudge heals.
   *
   * @param addresses every node's address
   */
  static String script(String node, Map<String, Set<String>> grudge,
      Map<String, String> addresses) {
    return script(node, grudge, addresses, TABLE);
  }

  /**
   * The same in a table of the caller's naming ({@code inet NAME}): on a shared host (the SSH
   * runtime) each run owns a table named after it, so tear-down removes exactly its own.
   */
  static String script(String node, Map<String, Set<String>> grudge,
      Map<String, String> addresses, String table) {
    Set<String> from = new TreeSet<>();
    for (String other : grudge.getOrDefault(node, Set.of())) {
      if (!other.equals(node)) { // a node never cuts itself off
        from.add(addresses.get(other));
      }
    }
    String script = "table " + table + "\ndelete table " + table + "\n";
    if (!from.isEmpty()) {
      script += "table " + table + " {\n  chain input {\n"
          + "    type filter hook input priority filter; policy accept;\n"
          + "    ip saddr { " + String.join(", ", from) + " } drop\n  }\n}\n";
    }
    return script;
  }

  /** True when {@code node} drops nothing under {@code grudge}. */
  static boolean isEmpty(String node, Map<String, Set<String>> grudge) {
    return grudge.getOrDefault(node, Set.of()).stream().allMatch(node::equals);
  }
}
