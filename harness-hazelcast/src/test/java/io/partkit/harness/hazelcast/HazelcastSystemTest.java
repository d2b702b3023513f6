package io.partkit.harness.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.system.Capability;
import io.partkit.harness.system.JavaCommand;
import io.partkit.harness.system.Systems;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the hazelcast system decides before any member runs (the runs are HazelcastVerifyTest). */
class HazelcastSystemTest {

  @Test
  void membersGetTheRootPomsHazelcastFlagsThroughTheBuiltResource() {
    // filled in from hazelcast.jvm.opens at build time; unfiltered it would be "${...}" and empty
    assertThat(JavaCommand.productFlags("hazelcast"))
        .containsSubsequence("--add-modules", "java.se")
        .contains("java.base/sun.nio.ch=ALL-UNNAMED")
        .noneMatch(f -> f.contains("${"));
  }

  @Test
  void isRegisteredUnderItsName() {
    assertThat(Systems.load().names()).contains("hazelcast");
    assertThat(Systems.named("hazelcast").name()).isEqualTo("hazelcast");
    assertThat(Systems.named("hazelcast")).isInstanceOf(Capability.Membership.class)
        .isInstanceOf(Capability.Rebalancing.class);
  }

  @Test
  void rejectsAnUnknownPartitioningBeforeStartingAnything() {
    // the options are checked before a system is created; start() reads only checked values
    assertThatThrownBy(() -> Systems.load().provider("hazelcast").options()
            .check(Map.of("partitioning", "jump"), 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hazelcast option partitioning=jump")
        .hasMessageContaining("one of hazelcast, partkit");
  }
}
