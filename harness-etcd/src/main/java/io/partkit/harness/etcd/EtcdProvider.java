package io.partkit.harness.etcd;

import io.partkit.harness.system.SystemOptions;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.SystemUnderTest;

/** {@code --system etcd}: see {@link EtcdSystem}. */
public final class EtcdProvider implements SystemProvider {

  @Override
  public String name() {
    return "etcd";
  }

  @Override
  public String description() {
    return "etcd 3.4+ (the etcd binary), one register per key, cas as a transaction";
  }

  /** Raft: an odd member count; 3 survives one loss. */
  @Override
  public int defaultNodes() {
    return 3;
  }

  @Override
  public SystemOptions options() {
    return SystemOptions.of(name(),
        SystemOptions.text("etcd", null, "the path of an etcd binary (default: found on PATH)"));
  }

  @Override
  public SystemUnderTest create() {
    return new EtcdSystem();
  }
}
