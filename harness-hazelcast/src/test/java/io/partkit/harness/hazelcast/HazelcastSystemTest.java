package io.partkit.harness.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.system.Capability;
import io.partkit.harness.system.JavaCommand;
import io.partkit.harness.system.SystemContext;
import io.partkit.harness.system.SystemUnderTest;
import io.partkit.harness.system.Systems;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    assertThat(Systems.named("hazelcast")).isInstanceOf(Capability.Membership.class);
  }

  @Test
  void rejectsAnUnknownPartitioningBeforeStartingAnything(@TempDir Path dir) {
    try (NodeRuntime runtime = Runtimes.processes();
        SystemUnderTest hz = Systems.named("hazelcast")) {
      assertThatThrownBy(
              () -> hz.start(new SystemContext(runtime, dir, 3, 1, Map.of("partitioning", "jump"))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("hazelcast or partkit");
      assertThat(hz.nodes()).as("no member was started").isEmpty();
    }
  }
}
