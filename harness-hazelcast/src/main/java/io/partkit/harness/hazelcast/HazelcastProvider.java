package io.partkit.harness.hazelcast;

import io.partkit.harness.system.SystemOptions;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.SystemUnderTest;

/** {@code --system hazelcast}: see {@link HazelcastSystem}. */
public final class HazelcastProvider implements SystemProvider {

  @Override
  public String name() {
    return "hazelcast";
  }

  @Override
  public String description() {
    return "Hazelcast 5.7 members (child JVMs) and Java clients on one IMap";
  }

  @Override
  public SystemOptions options() {
    return SystemOptions.of(name(),
        SystemOptions.oneOf("partitioning", "hazelcast", "hazelcast", "partkit"),
        SystemOptions.oneOf("routing", "smart", "smart", "member"),
        SystemOptions.text("merge-policy", "PutIfAbsentMergePolicy",
            "a merge policy class, short or fully qualified"),
        SystemOptions.integer("backups", 1, 0, 6),
        new SystemOptions.Spec("split-brain-protection", null, "an integer >= 1 (default: off)",
            SystemOptions.integer("split-brain-protection", 1, 1, Integer.MAX_VALUE).check()),
        SystemOptions.integer("heartbeat-seconds", 1, 1, Integer.MAX_VALUE),
        SystemOptions.integer("no-heartbeat-seconds", 5, 1, Integer.MAX_VALUE),
        SystemOptions.integer("op-timeout-ms", 5000, 1, Integer.MAX_VALUE),
        SystemOptions.integer("merge-first-seconds", 5, 1, Integer.MAX_VALUE),
        SystemOptions.integer("merge-next-seconds", 5, 1, Integer.MAX_VALUE),
        SystemOptions.heapMb(256));
  }

  @Override
  public SystemUnderTest create() {
    return new HazelcastSystem();
  }
}
