package io.partkit.harness.ignite;

import io.partkit.harness.system.SystemOptions;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.SystemUnderTest;

/** {@code --system ignite}: see {@link IgniteSystem}. */
public final class IgniteProvider implements SystemProvider {

  @Override
  public String name() {
    return "ignite";
  }

  @Override
  public String description() {
    return "Apache Ignite 2.18 server nodes (child JVMs) with partkit's affinity, thin clients";
  }

  @Override
  public SystemOptions options() {
    return SystemOptions.of(name(),
        SystemOptions.oneOf("affinity", "partkit-fixed", "partkit-fixed", "partkit-rendezvous",
            "native"),
        SystemOptions.integer("partitions", 64, 1, 65000),
        SystemOptions.oneOf("atomicity", "atomic", "atomic", "transactional"),
        SystemOptions.integer("backups", 1, 1, 2),
        SystemOptions.integer("failure-detection", 10000, 1, Integer.MAX_VALUE),
        SystemOptions.oneOf("read-from-backup", "false", "true", "false"),
        SystemOptions.oneOf("write-sync", "full-sync", "full-sync", "primary-sync",
            "full-async"),
        SystemOptions.heapMb(256),
        // the off-heap region that holds a node's entries: the harness's runs keep little data;
        // out of it, Ignite stops the node
        SystemOptions.integer("region-mb", 64, 16, 1 << 20));
  }

  @Override
  public SystemUnderTest create() {
    return new IgniteSystem();
  }
}
