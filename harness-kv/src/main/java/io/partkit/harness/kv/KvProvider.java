package io.partkit.harness.kv;

import io.partkit.harness.system.SystemOptions;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.SystemUnderTest;
import io.partkit.kvstore.node.KvNode;

/** {@code --system kv}: see {@link KvSystem}. */
public final class KvProvider implements SystemProvider {

  @Override
  public String name() {
    return "kv";
  }

  @Override
  public String description() {
    return "partkit's kvstore: node processes, a coordinator (a partkit strategy, fixed by"
        + " default), routing clients";
  }

  @Override
  public SystemOptions options() {
    return SystemOptions.of(name(),
        SystemOptions.integer("partitions", 16, 1, 65536),
        // the coordinator's strategy; partitions is the count of fixed, rendezvous and range
        // (key ranges, even over the keys' first 8 bytes), and tokenring has none (16 tokens per
        // node from the allocator); tokenring with replicas >= 2 is refused as the run starts
        SystemOptions.oneOf("strategy", "fixed", "fixed", "rendezvous", "range", "tokenring"),
        SystemOptions.also(SystemOptions.integer("replicas", 1, 1, Integer.MAX_VALUE),
            (value, nodes) -> Integer.parseInt(value.trim()) > nodes
                ? "more copies than the " + nodes + " nodes to hold them" : null),
        SystemOptions.oneOf("metadata", "embedded", "embedded", "etcd"),
        SystemOptions.oneOf("fault", null, "ack-before-log", "serve-while-fenced",
            "skip-epoch-check", "skip-replication"),
        SystemOptions.text("etcd", null, "the etcd binary for metadata=etcd (default: on PATH)"),
        // how long a primary waits for a backup's answer before failing the request and
        // reporting the backup to the coordinator (which takes it out at the next epoch)
        SystemOptions.integer("replica-timeout-ms", (int) KvNode.REPLICA_TIMEOUT.toMillis(),
            50, 600_000),
        // how long a primary waits for a backup before it reports it to the coordinator as a
        // suspect, waiting on (below replica-timeout-ms; checked when the run starts)
        suspectAfter(),
        SystemOptions.heapMb(KvSystem.NODE_HEAP_MB));
  }

  private static SystemOptions.Spec suspectAfter() {
    SystemOptions.Spec range = SystemOptions.integer("suspect-after-ms",
        (int) KvNode.SUSPECT_AFTER.toMillis(), 10, 599_999);
    return new SystemOptions.Spec(range.name(), range.defaultValue(), range.accepts()
        + ", below replica-timeout-ms (when not given: half of replica-timeout-ms if that is"
        + " shorter than " + range.defaultValue() + ")", range.check());
  }

  @Override
  public SystemUnderTest create() {
    return new KvSystem();
  }
}
