package io.partkit.strategy.fixed;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A table is a fixpoint of its own view: re-assigning the same members with the table as previous
 * returns the same placement (Ignite recalculates with unchanged members on activation, baseline
 * changes and lost-partition resets; a coordinator may re-plan). Seeded random views with zone and
 * rack labels (uneven zones, 1..5 of them), weights 1..3, 1..4 replicas, random joins and leaves.
 */
class FixedIdempotenceTest {

  static LongStream seeds() {
    return LongStream.range(0, 64);
  }

  /** A member with random labels drawn from {@code zones} zones of two racks each. */
  private static Member randomMember(Random random, String id, int zones) {
    String zone = "z" + random.nextInt(zones);
    String rack = "r" + random.nextInt(2);
    return new Member(io.partkit.spi.NodeId.of(id), "", 1 + random.nextInt(3), zone, rack);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void reassigningWithItsOwnTableMovesNothing(long seed) {
    Random random = new Random(seed);
    int partitions = random.nextBoolean() ? 64 : 271;
    int replicas = 1 + random.nextInt(4);
    int zones = 1 + random.nextInt(5);
    boolean labelled = seed % 8 != 7; // a few unlabelled runs keep the plain case covered
    Partitioner fixed = FixedPartitioner.create(
        PartitionerConfig.of("partitions", partitions, "replicas", replicas));
    List<Member> members = new ArrayList<>();
    int nextId = 0;
    for (int i = 1 + random.nextInt(8); i > 0; i--) {
      members.add(labelled ? randomMember(random, "m" + nextId++, zones)
          : Member.weighted("m" + nextId++, 1 + random.nextInt(3)));
    }
    MembershipView view = MembershipView.of(0, members);
    PartitionAssignment table = fixed.assign(view);
    for (int step = 0; step < 12; step++) {
      PartitionAssignment again = fixed.assign(view, Optional.of(table));
      assertThat(again.replicaTable())
          .as("seed %d step %d: %s re-assigned with its own table", seed, step, view.members())
          .isEqualTo(table.replicaTable());
      MembershipView next;
      if (view.size() > 1 && (view.size() > 9 || random.nextInt(3) == 0)) {
        next = view.without(view.member(random.nextInt(view.size())).id());
      } else {
        String id = "m" + nextId++;
        next = view.with(labelled ? randomMember(random, id, zones)
            : Member.weighted(id, 1 + random.nextInt(3)));
      }
      table = fixed.assign(next, Optional.of(table));
      view = next;
    }
  }
}
