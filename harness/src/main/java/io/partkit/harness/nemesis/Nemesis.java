package io.partkit.harness.nemesis;

import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.system.SystemUnderTest;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * One kind of fault. The harness's {@code NemesisSchedule} (package-private there) picks a kind at
 * random (seeded), starts it, holds it a while and heals it, and records both as {@code :nemesis}
 * operations.
 */
public interface Nemesis {

  /** The name on the command line: kill, pause, partition, membership, migration, lose. */
  String name();

  /**
   * Why this nemesis cannot run on this system and runtime with {@code nodes} data nodes, or empty
   * when it can (for example a partition on loopback, or membership on a system without it).
   * Asked before the system starts.
   */
  Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime, int nodes);

  /**
   * As {@link #unsupported(SystemUnderTest, NodeRuntime, int)}, for a system started with
   * {@code options} (some faults need a system configured to survive them).
   */
  default Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime, int nodes,
      Map<String, String> options) {
    return unsupported(system, runtime, nodes);
  }

  /** Starts a fault, choosing its targets with {@code random}. */
  Fault start(SystemUnderTest system, NodeRuntime runtime, Random random);
}
