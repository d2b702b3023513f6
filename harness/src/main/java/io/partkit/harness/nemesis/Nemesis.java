package io.partkit.harness.nemesis;

import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.system.Capability;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.SystemUnderTest;
import java.util.Optional;
import java.util.Random;

/**
 * One kind of fault. The harness's {@code NemesisSchedule} (package-private there) picks a kind at
 * random (seeded), starts it, holds it a while and heals it, and records both as {@code :nemesis}
 * operations.
 */
public interface Nemesis {

  /**
   * The name on the command line: kill, pause, partition, membership, migration, lose, split.
   */
  String name();

  /**
   * The {@link Capability} a system must offer for this nemesis (kill needs {@link
   * Capability.Kill}); empty when it needs none (a partition needs only a runtime with {@link
   * io.partkit.harness.runtime.RuntimeCapability.Partitions}, which it checks in {@link
   * #unsupported}). A run on a
   * system without it is refused before anything starts; {@link #unsupported} and {@link #start}
   * may cast the system to it.
   */
  default Optional<Class<? extends Capability>> needs() {
    return Optional.empty();
  }

  /**
   * Why this nemesis cannot run on this system and runtime with {@code nodes} data nodes, or empty
   * when it can (for example a partition on loopback, or membership on one node). Asked before
   * the system starts, and only when the system offers what {@link #needs} names.
   */
  Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime, int nodes);

  /**
   * As {@link #unsupported(SystemUnderTest, NodeRuntime, int)}, for a system started with
   * {@code options} (some faults need a system configured to survive them).
   */
  default Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime, int nodes,
      OptionValues options) {
    return unsupported(system, runtime, nodes);
  }

  /** Starts a fault, choosing its targets with {@code random}. */
  Fault start(SystemUnderTest system, NodeRuntime runtime, Random random);
}
