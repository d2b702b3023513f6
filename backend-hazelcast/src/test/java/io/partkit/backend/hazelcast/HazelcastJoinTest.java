package io.partkit.backend.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import io.partkit.spi.Member;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.stats.Movement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link HazelcastAssignments#watch} on a real join: two members, then a third; the watcher sees
 * Hazelcast's table before and after, and partkit's {@link Movement} measures the join.
 */
class HazelcastJoinTest {

  private static final List<HazelcastInstance> started = new CopyOnWriteArrayList<>();
  private static List<Integer> ports;
  private static String cluster;

  @BeforeAll
  static void startTwo() {
    ports = TestMembers.freePorts(3);
    cluster = "partkit-hz-join-" + UUID.randomUUID();
    List<Config> configs = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      configs.add(HazelcastMembers.describe(TestMembers.config(cluster, ports.get(i), ports),
          Member.of("m" + i)));
    }
    started.addAll(TestMembers.start(configs, 2));
  }

  @AfterAll
  static void stopAll() {
    TestMembers.shutdown(started);
  }

  @Test
  void watcherSeesTheJoinAndMovementMeasuresIt() throws Exception {
    HazelcastInstance first = started.get(0);
    first.getMap("any").put("warm-up", 1); // partitions are assigned on first use
    List<PartitionAssignment> seen = new CopyOnWriteArrayList<>();
    AutoCloseable watch = HazelcastAssignments.watch(first, seen::add);
    try {
      TestMembers.awaitTrue(Duration.ofSeconds(30),
          () -> !seen.isEmpty() && seen.get(seen.size() - 1).nodes().size() == 2
              && first.getPartitionService().isClusterSafe(), "two owners");
      PartitionAssignment before = HazelcastAssignments.snapshot(first, 0).orElseThrow();

      Config third = HazelcastMembers.describe(TestMembers.config(cluster, ports.get(2), ports),
          Member.of("m2"));
      started.addAll(TestMembers.start(List.of(third), 3));
      TestMembers.awaitTrue(Duration.ofSeconds(60),
          () -> first.getPartitionService().isClusterSafe()
              && seen.get(seen.size() - 1).nodes().size() == 3, "three owners after the join");
      PartitionAssignment after = seen.get(seen.size() - 1);
      assertThat(after)
          .isEqualTo(HazelcastAssignments.snapshot(first, after.epoch()).orElseThrow());

      for (int i = 1; i < seen.size(); i++) {
        assertThat(seen.get(i).epoch()).isEqualTo(seen.get(i - 1).epoch() + 1);
      }
      Movement movement = Movement.between(before, after);
      assertThat(movement.joined()).containsExactly(NodeId.of("m2"));
      assertThat(movement.left()).isEmpty();
      // data moves to the new member; its share is what it now owns
      int ownedByNew = after.primaryPartitionsOf(NodeId.of("m2")).length;
      assertThat(ownedByNew).isBetween(88, 92);
      assertThat(movement.primaryMovedShare()).isGreaterThanOrEqualTo(ownedByNew / 271.0 - 1e-9);
    } finally {
      watch.close();
    }
  }
}
