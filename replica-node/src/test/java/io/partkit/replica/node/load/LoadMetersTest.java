package io.partkit.replica.node.load;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.replica.node.load.LoadMeters.Op;
import io.partkit.spi.NodeId;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The shared meters: what a served request adds, what a partition's load reports, removal. */
class LoadMetersTest {

  private static final NodeId NODE = NodeId.of("n1");

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void aServedRequestAddsToItsPartitionAndTheNodeAndThePartitionsLoadSumsThem() {
    MeterRegistry registry = new SimpleMeterRegistry();
    LoadMeters meters = new LoadMeters(NODE, registry, EnumSet.allOf(Op.class), () -> 42,
        Duration.ofMinutes(1), 0);
    LoadMeters.Partition p = meters.partition(3, () -> 5, 1_000);
    meters.served(p, Op.GET, b("a"), 1, 8, 100, 2_000);
    meters.served(p, Op.PUT, b("a"), 9, 0, 300, 2_000);
    meters.served(p, Op.CAS, b("b"), 17, 0, 50, 2_000);
    meters.served(p, Op.SCAN, null, 2, 64, 700, 2_000);

    assertThat(registry.get(LoadMeters.PARTITION_REQUESTS)
        .tags("node", "n1", "partition", "3", "op", "put").timer().totalTime(TimeUnit.NANOSECONDS))
        .isEqualTo(300);
    assertThat(registry.get(LoadMeters.NODE_REQUESTS).tags("node", "n1", "op", "scan").timer()
        .count()).isEqualTo(1);
    assertThat(registry.get(LoadMeters.PARTITION_BYTES).tags("partition", "3", "direction", "in")
        .counter().count()).isEqualTo(1 + 9 + 17 + 2);
    assertThat(registry.get(LoadMeters.NODE_BYTES).tags("direction", "out").counter().count())
        .isEqualTo(8 + 64);
    assertThat(registry.get(LoadMeters.PARTITION_KEYS).tags("partition", "3").gauge().value())
        .isEqualTo(5);
    assertThat(registry.get(LoadMeters.NODE_KEYS).gauge().value()).isEqualTo(42);
    assertThat(registry.get(LoadMeters.NODE_PARTITIONS).gauge().value()).isEqualTo(1);

    PartitionLoad load = p.load("PRIMARY", 7, 5, 11_000);
    assertThat(load).isEqualTo(new PartitionLoad(3, "PRIMARY", 7, 5, 10_000, 2, 1, 1,
        1 + 9 + 17 + 2, 8 + 64, 100 + 300 + 50 + 700, 700));
    assertThat(load.ops()).isEqualTo(4);
    assertThat(load.opsPerSecond()).isEqualTo(4 * 1e9 / 10_000);
  }

  @Test
  void hotKeysCountKeysNotScansAndTheShareGaugeReadsTheHottest() {
    MeterRegistry registry = new SimpleMeterRegistry();
    LoadMeters meters = new LoadMeters(NODE, registry, EnumSet.allOf(Op.class), () -> 0,
        Duration.ofMinutes(1), 0);
    LoadMeters.Partition p = meters.partition(0, () -> 0, 0);
    for (int i = 0; i < 30; i++) {
      meters.served(p, Op.GET, b("hot"), 3, 0, 1, 10);
    }
    for (int i = 0; i < 10; i++) {
      meters.served(p, Op.PUT, b("cold" + i), 5, 0, 1, 10);
      meters.served(p, Op.SCAN, null, 0, 0, 1, 10);
    }
    NodeLoad view = meters.view(NODE, List.of());
    assertThat(view.hotKeyRequests()).as("scans have no key to count").isEqualTo(40);
    assertThat(view.hotKeys()).hasSize(1);
    assertThat(view.hotKeys().get(0).key()).isEqualTo(b("hot"));
    assertThat(view.hotKeys().get(0).estimate()).isEqualTo(30);
    assertThat(registry.get(LoadMeters.NODE_HOT_KEY_SHARE).gauge().value())
        .isEqualTo(30.0 / 40);
  }

  @Test
  void aRemovedPartitionAndAClosedNodeLeaveNoMeter() {
    MeterRegistry registry = new SimpleMeterRegistry();
    LoadMeters meters = new LoadMeters(NODE, registry, EnumSet.of(Op.GET, Op.PUT, Op.CAS),
        () -> 0, Duration.ofMinutes(1), 0);
    LoadMeters.Partition p0 = meters.partition(0, () -> 0, 0);
    meters.partition(1, () -> 0, 0);
    assertThat(registry.find(LoadMeters.PARTITION_REQUESTS).tag("op", "scan").meters())
        .as("an op the node does not meter has no timer").isEmpty();
    meters.remove(p0);
    meters.remove(p0);
    assertThat(registry.find(LoadMeters.PARTITION_REQUESTS).tag("partition", "0").meters())
        .isEmpty();
    assertThat(registry.find(LoadMeters.PARTITION_REQUESTS).tag("partition", "1").meters())
        .hasSize(3);
    assertThat(meters.partitions()).isEqualTo(1);
    meters.close();
    assertThat(registry.getMeters()).isEmpty();
  }
}
