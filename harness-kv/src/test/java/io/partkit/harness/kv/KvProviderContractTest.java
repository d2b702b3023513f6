package io.partkit.harness.kv;

import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.testkit.SystemProviderContract;
import java.util.Map;

/**
 * kv on node processes, held to the provider test kit's contract: found by name, started, every
 * node killed and restarted without losing an acknowledged write, a write to paused nodes
 * reported info, and a short verify run under kills and pauses valid. Three nodes, partkit's
 * smallest cluster that still spreads the keys.
 */
class KvProviderContractTest extends SystemProviderContract {

  @Override
  protected SystemProvider provider() {
    return new KvProvider();
  }

  @Override
  protected int nodes() {
    return 3;
  }

  @Override
  protected Map<String, String> options() {
    return Map.of("partitions", "8");
  }
}
