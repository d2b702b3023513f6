package io.partkit.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.partkit.bench.Measures.Balance;
import io.partkit.bench.Measures.Move;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The sampled measures (used for Ignite, Hazelcast and jump hash) against the exact ones (the
 * SPI's {@code PlacementStatistics} and {@code Movement}) on the same placements: a seeded ring
 * measured both ways must agree within sampling error.
 */
class MeasuresTest {

  static Stream<Arguments> rings() {
    return Stream.of(
        Arguments.of(11L, 12, Weights.EQUAL, 1),
        Arguments.of(12L, 20, Weights.MIXED, 3),
        Arguments.of(13L, 7, Weights.EQUAL, 2));
  }

  @ParameterizedTest
  @MethodSource("rings")
  void sampledMeasuresAgreeWithExactOnes(long seed, int nodes, Weights weights, int rf) {
    VnodeSubject subject = new VnodeSubject(8, seed);
    Cluster cluster = Cluster.of(nodes, weights);
    long[] keys = Keys.sample(seed, 400_000);
    Placement base = subject.place(cluster.view(), rf, Optional.empty());
    Placement joined = subject.place(cluster.joined(), rf, Optional.of(base));
    Placement left = subject.place(cluster.leftMiddle(), rf, Optional.of(base));

    Balance exact = Measures.balance(base, keys);
    Balance sampled = Measures.balance(sampledOnly(base), keys);
    assertThat(exact.method()).isEqualTo("exact");
    assertThat(sampled.method()).isEqualTo("sampled 400k keys");
    assertThat(sampled.partitionsMaxAvg()).isEqualTo(exact.partitionsMaxAvg(), within(1e-9));
    assertThat(sampled.keysMaxAvg())
        .as("seed %d", seed)
        .isCloseTo(exact.keysMaxAvg(), within(0.03));
    assertThat(sampled.keysStdDev())
        .as("seed %d", seed)
        .isCloseTo(exact.keysStdDev(), within(0.02));
    assertThat(sampled.replicaKeysMaxAvg()).as("seed %d", seed)
        .isCloseTo(exact.replicaKeysMaxAvg(), within(0.03));

    for (Placement after : new Placement[] {joined, left}) {
      Move e = Measures.movement(base, after, keys);
      Move s = Measures.movement(sampledOnly(base), sampledOnly(after), keys);
      assertThat(s.optimal()).isEqualTo(e.optimal(), within(1e-12));
      assertThat(s.moved()).as("seed %d", seed).isCloseTo(e.moved(), within(0.005));
      assertThat(s.movedBetweenStaying()).as("seed %d", seed)
          .isCloseTo(e.movedBetweenStaying(), within(0.005));
      assertThat(s.replicaMoved()).as("seed %d", seed).isCloseTo(e.replicaMoved(), within(0.005));
    }
  }

  /** The same placement with its exact form hidden, so the harness must sample. */
  private static Placement sampledOnly(Placement p) {
    return new Placement() {
      @Override
      public MembershipView view() {
        return p.view();
      }

      @Override
      public int replicationFactor() {
        return p.replicationFactor();
      }

      @Override
      public int partitionCount() {
        return p.partitionCount();
      }

      @Override
      public int replica(int partition, int rank) {
        return p.replica(partition, rank);
      }

      @Override
      public int[] partitionsOf(long[] keys) {
        return p.partitionsOf(keys);
      }

      @Override
      public Optional<PartitionAssignment> exact() {
        return Optional.empty();
      }

      @Override
      public Lookup lookup() {
        return p.lookup();
      }
    };
  }
}
