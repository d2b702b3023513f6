package io.partkit.simulation;

import io.partkit.simulation.Fault.Kind;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;

/**
 * A seed's faults, drawn before the run: first which kinds this seed uses (each with even odds,
 * swarm testing: a seed that never partitions explores crashes deeper), then when each strikes.
 * The network's own loss, duplication and delay are drawn per seed by the run. Splits are drawn
 * the same way from a stream of their own, and so are the control's restarts, so that adding
 * either left every other fault of a seed where it was.
 */
final class FaultPlan {

  /** Mean virtual time between fault starts. */
  static final long MEAN_GAP_MILLIS = 550;

  /** Mean virtual time between splits, in a seed that splits. */
  static final long SPLIT_GAP_MILLIS = 1_500;

  /** Mean virtual time between merges, with merges on. */
  static final long MERGE_GAP_MILLIS = 1_000;

  /** Mean virtual time between the control's crashes, in a seed that crashes it. */
  static final long CONTROL_RESTART_GAP_MILLIS = 1_000;

  private FaultPlan() {}

  static List<Fault> draw(long seed, SimulationSpec spec) {
    Random r = new Random(seed ^ 0x5DEECE66DL * 31);
    EnumSet<Kind> kinds = EnumSet.noneOf(Kind.class);
    for (Kind k : Kind.values()) {
      if (k != Kind.SPLIT && k != Kind.CONTROL_RESTART && k != Kind.WIPE
          && k != Kind.TRUNCATE && k != Kind.MERGE && r.nextBoolean()) {
        kinds.add(k);
      }
    }
    if (kinds.isEmpty()) {
      kinds.add(Kind.values()[r.nextInt(Kind.SPLIT.ordinal())]);
    }
    List<Kind> pick = new ArrayList<>(kinds);
    List<Fault> plan = new ArrayList<>();
    long end = spec.time().toMillis();
    long at = 100 + r.nextInt((int) MEAN_GAP_MILLIS);
    while (at < end - 100) {
      Kind k = pick.get(r.nextInt(pick.size()));
      long duration = switch (k) {
        case PARTITION, ONE_WAY, PAUSE -> 100 + r.nextInt(1400);
        case KILL, POWER_LOSS, POWER_LOSS_GROUP, DISK_FULL -> 50 + r.nextInt(900);
        case CONTROL_CUT -> 500 + r.nextInt(1000);
        default -> 0;
      };
      plan.add(new Fault(at, k, duration, r.nextInt(1 << 16), r.nextInt(1 << 16)));
      at += 1 + r.nextInt((int) (2 * MEAN_GAP_MILLIS));
    }
    Random splits = new Random(seed ^ 0x5B1175L * 37);
    if (splits.nextBoolean()) {
      for (long s = 100 + splits.nextInt((int) SPLIT_GAP_MILLIS); s < end - 100;
          s += 1 + splits.nextInt((int) (2 * SPLIT_GAP_MILLIS))) {
        plan.add(new Fault(s, Kind.SPLIT, 0, splits.nextInt(1 << 16), 0));
      }
    }
    Random restarts = new Random(seed ^ 0xC0DE5L * 41);
    if (restarts.nextBoolean()) {
      for (long s = 100 + restarts.nextInt((int) CONTROL_RESTART_GAP_MILLIS); s < end - 100;
          s += 1 + restarts.nextInt((int) (2 * CONTROL_RESTART_GAP_MILLIS))) {
        plan.add(new Fault(s, Kind.CONTROL_RESTART, 50 + restarts.nextInt(900), 0,
            restarts.nextInt(4)));
      }
    }
    Random wipes = new Random(seed ^ 0x3A1FEL * 43);
    if (spec.wipes() && wipes.nextInt(2) == 0) {
      for (long s = 100 + wipes.nextInt(2_000); s < end - 100; s += 1 + wipes.nextInt(4_000)) {
        plan.add(new Fault(s, Kind.WIPE, 50 + wipes.nextInt(900), wipes.nextInt(1 << 16), 0));
      }
    }
    // the seed spread over every bit first: Random's first draws from seeds that differ in their
    // low bits alone barely differ
    Random truncations = new Random((seed + 0x7A11CL) * 0x9E3779B97F4A7C15L);
    if (spec.truncations() && truncations.nextInt(2) == 0) {
      for (long s = 100 + truncations.nextInt(2_000); s < end - 100;
          s += 1 + truncations.nextInt(4_000)) {
        plan.add(new Fault(s, Kind.TRUNCATE, 50 + truncations.nextInt(900),
            truncations.nextInt(1 << 16), truncations.nextInt(1 << 16)));
      }
    }
    Random merges = new Random((seed + 0x3E12E5L) * 0xC2B2AE3D27D4EB4FL);
    if (spec.merges()) {
      for (long s = 100 + merges.nextInt((int) MERGE_GAP_MILLIS); s < end - 100;
          s += 1 + merges.nextInt((int) (2 * MERGE_GAP_MILLIS))) {
        plan.add(new Fault(s, Kind.MERGE, 0, merges.nextInt(1 << 16), 0));
      }
    }
    plan.sort(java.util.Comparator.comparingLong(Fault::at));
    return plan;
  }
}
