package io.partkit.harness.kv;

import io.partkit.harness.system.SystemOptions;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.SystemUnderTest;
import io.partkit.replica.Timing;
import io.partkit.replica.node.ReplicaNodeMain;

/** {@code --system kv}: see {@link KvSystem}. */
public final class KvProvider implements SystemProvider {

  @Override
  public String name() {
    return "kv";
  }

  @Override
  public String description() {
    return "partkit's replicated key-value store, the Fixed Partitions protocol's replica cores"
        + " (partkit simulate's code): node processes with write-ahead logs, a control process,"
        + " routing clients";
  }

  @Override
  public SystemOptions options() {
    return SystemOptions.of(name(),
        SystemOptions.integer("partitions", 16, 1, 65536),
        SystemOptions.also(SystemOptions.integer("replicas", 3, 1, Integer.MAX_VALUE),
            (value, nodes) -> Integer.parseInt(value.trim()) > nodes
                ? "more copies than the " + nodes + " nodes to hold them" : null),
        // how long a client waits for an operation's answer before it is unknown (info)
        SystemOptions.integer("request-timeout-ms", KvSystem.REQUEST_TIMEOUT_MILLIS, 100,
            600_000),
        // the table size past which the split nemesis splits no further
        SystemOptions.integer("max-partitions", KvSystem.MAX_PARTITIONS, 1, 1 << 20),
        // how the first table numbers keys: hash slots, key ranges or a token ring
        SystemOptions.oneOf("numbering", KvSystem.HASHED, KvSystem.HASHED,
            KvSystem.KEYS, KvSystem.TOKENS),
        // how the control places copies: its own rule, or a partkit strategy of hash slots
        SystemOptions.oneOf("strategy", KvSystem.CORE_PLACEMENT, KvSystem.CORE_PLACEMENT,
            "fixed", "rendezvous"),
        // where the control keeps its state: a log of its own, etcd with a standby control, or
        // the store of a partkit coordinator that decides the table and runs the control
        SystemOptions.oneOf("metadata", KvSystem.LOG_METADATA, KvSystem.LOG_METADATA,
            "etcd", KvSystem.COORDINATOR_METADATA),
        SystemOptions.text("etcd", null, "the etcd binary for metadata=etcd (default: on PATH)"),
        // each data node's heap: a node keeps its partitions' keys and values in memory
        SystemOptions.heapMb(KvSystem.NODE_HEAP_MB),
        // how much a node's log grows before it is compacted while running
        // a planted bug on every data node (MutantNodeMain): the run must then be invalid
        SystemOptions.oneOf("mutant", null, MutantNodeMain.names().toArray(String[]::new)),
        SystemOptions.integer("compact-bytes", (int) ReplicaNodeMain.COMPACT_BYTES, 4096,
            Integer.MAX_VALUE),
        new SystemOptions.Spec("timing", KvSystem.timingText(),
            "the protocol's resend,suspect,ping,down milliseconds",
            (value, nodes) -> timingProblem(value)));
  }

  private static String timingProblem(String value) {
    String[] p = value.split(",");
    if (p.length != 4) {
      return "not four numbers";
    }
    try {
      new Timing(Long.parseLong(p[0].trim()), Long.parseLong(p[1].trim()),
          Long.parseLong(p[2].trim()), Long.parseLong(p[3].trim()));
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  @Override
  public SystemUnderTest create() {
    return new KvSystem();
  }
}
