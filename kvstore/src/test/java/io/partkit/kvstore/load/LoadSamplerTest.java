package io.partkit.kvstore.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.client.KvException;
import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.LoadMeasure;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.spi.HashSlots;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a {@link LoadSampler} answers for which table, from scripted load readings. */
class LoadSamplerTest {

  private static final NodeId A = NodeId.of("a");
  private static final long SECOND = 1_000_000_000L;

  /** One partition on a. */
  private static PartitionAssignment table(long epoch) {
    return PartitionAssignment.of("test", epoch, 0, HashSlots.of(1), List.of(List.of(A)));
  }

  /** Partition 0 on a served {@code ops} puts over {@code seconds}, under {@code epoch}. */
  private static ClusterLoad reading(long epoch, long seconds, long ops) {
    PartitionLoad p = new PartitionLoad(0, PartitionState.OWNED.name(), epoch, 1,
        seconds * SECOND, 0, ops, 0, 0, 0, 0, 0);
    return new ClusterLoad(table(epoch), List.of(new NodeLoad(A, List.of(p), 0, 0, List.of())));
  }

  /**
   * A client whose {@code load()} returns the next scripted reading (null: the nodes cannot be
   * reached); the sampler calls nothing else.
   */
  private static KvClient scripted(Deque<ClusterLoad> readings) {
    return (KvClient) Proxy.newProxyInstance(KvClient.class.getClassLoader(),
        new Class<?>[] {KvClient.class}, (proxy, method, args) -> {
          if (!method.getName().equals("load")) {
            throw new UnsupportedOperationException(method.getName());
          }
          ClusterLoad next = readings.removeFirst();
          if (next.nodes().isEmpty()) {
            throw new KvException("load view of a: unreachable", false, null);
          }
          return next;
        });
  }

  @Test
  void itAnswersTheLastSampleOnlyForTheTableItWasMeasuredUnder() {
    Deque<ClusterLoad> readings = new ArrayDeque<>(List.of(reading(5, 10, 1000),
        reading(5, 20, 1100), new ClusterLoad(table(5), List.of()), reading(6, 4, 40)));
    LoadSampler sampler = LoadSampler.of(scripted(readings)::load, LoadMeasure.OPS_PER_SECOND);
    assertThat(sampler.loads(table(5))).as("nothing sampled yet").isEmpty();

    PartitionLoads first = sampler.sample();
    assertThat(first.load(0)).as("the first sample: the whole count's average")
        .isCloseTo(100, within(1e-9));
    PartitionLoads second = sampler.sample();
    assertThat(second.load(0)).as("100 ops in the 10 s between the samples")
        .isCloseTo(10, within(1e-9));
    assertThat(sampler.loads(table(5))).contains(second);
    assertThat(sampler.loads(table(6))).as("measured under epoch 5").isEmpty();

    assertThatThrownBy(sampler::sample).isInstanceOf(KvException.class);
    assertThat(sampler.loads(table(5))).as("a failed sample keeps the last good one")
        .contains(second);

    PartitionLoads third = sampler.sample();
    assertThat(third.load(0)).as("the first sample under epoch 6: its whole count again")
        .isCloseTo(10, within(1e-9));
    assertThat(sampler.loads(table(6))).contains(third);
    assertThat(sampler.loads(table(5))).isEmpty();
  }
}
