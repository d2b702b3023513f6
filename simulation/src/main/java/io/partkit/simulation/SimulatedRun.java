package io.partkit.simulation;

import io.partkit.harness.check.LostWrites;
import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.CheckOptions;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * One seed, in this thread, in verify's phases: clients and faults for the spec's time, heal,
 * recovery (until the control says every partition is whole and level), final reads, the check
 * (the history, and that copies of one state hold the same data).
 * Four random streams come from the seed: the network's rates (the swarm), the network's
 * delays, losses and copies, the control's store's delays, and everything else (ticks, syncs,
 * torn tails, clients' pauses).
 */
final class SimulatedRun {

  static final long RECOVERY_LIMIT_MILLIS = 30_000;
  /** How often the copies of one state are compared ({@link SimCluster#divergedCopies}). */
  static final long COPIES_EVERY_MILLIS = 50;
  static final long FINAL_READS_LIMIT_MILLIS = 30_000;

  private final SimulationSpec spec;
  private final long seed;
  private final List<Fault> plan;
  private final VirtualTime time = new VirtualTime();
  private final SimHistory history = new SimHistory(time);
  private final SimCluster cluster;
  private final Clients clients;
  private final Nemesis nemesis;
  /** How copies of one state were first seen to differ; null: they were not. */
  private String diverged;

  SimulatedRun(SimulationSpec spec, long seed, List<Fault> plan) {
    this.spec = spec;
    this.seed = seed;
    this.plan = plan;
    Random net = new Random(seed * 0x9E3779B97F4A7C15L + 1);
    Random chance = new Random(seed * 0x9E3779B97F4A7C15L + 2);
    Random swarm = new Random(seed * 0x9E3779B97F4A7C15L + 3);
    Random store = new Random(seed * 0x9E3779B97F4A7C15L + 4);
    SimNetwork network = new SimNetwork(time, swarm, net);
    this.cluster = new SimCluster(spec, time, chance, store, network);
    this.clients = new Clients(spec, seed, time, chance, network, cluster::control, history);
    cluster.repliesTo(clients::onReply);
    this.nemesis = new Nemesis(spec, time, network, cluster, history, clients::keys);
  }

  SeedResult run() {
    try {
      return runPhases();
    } catch (VirtualTime.Runaway e) {
      // the history so far is still checked: what it shows broken is broken
      return check("the run was stopped: " + e.getMessage(), false);
    }
  }

  private SeedResult runPhases() {
    long end = spec.time().toMillis();
    cluster.start();
    clients.start();
    watchCopies();
    nemesis.plan(plan, end);
    time.runUntil(end);
    clients.stop();
    nemesis.heal();
    String unfinished = null;
    if (!time.runWhile(() -> clients.waiting() || !cluster.control().settled(),
        end + RECOVERY_LIMIT_MILLIS)) {
      unfinished = "the cluster did not recover within " + RECOVERY_LIMIT_MILLIS
          + " ms of virtual time after the heal: "
          + cluster.control().unsettled().orElse("clients waiting") + "; nodes:"
          + cluster.describe();
    }
    clients.startFinalReads();
    time.runWhile(() -> !clients.finalReadsDone(), time.now() + FINAL_READS_LIMIT_MILLIS);
    if (diverged == null) {
      diverged = cluster.divergedCopies().orElse(null);
    }
    return check(unfinished, true);
  }

  /**
   * Compares the copies every {@link #COPIES_EVERY_MILLIS} of virtual time, until one differs: a
   * difference that later writes overwrite would be gone by the end of the run.
   */
  private void watchCopies() {
    time.schedule(COPIES_EVERY_MILLIS, () -> {
      diverged = cluster.divergedCopies().map(d -> "at " + time.now() + " ms, " + d)
          .orElse(null);
      if (diverged == null) {
        watchCopies();
      }
    });
  }

  /** The verdict on the history; an incomplete run is never valid. */
  private SeedResult check(String unfinished, boolean complete) {
    List<Op> ops = history.ops();
    Analysis analysis = Linearizability.check(Models.casRegister(null, NilReads.STRICT),
        History.of("seed " + seed, ops), CheckOptions.defaults().withParallelism(1)
            .withTimeLimit(Duration.ofSeconds(60)).withStopOnFirstInvalid(true));
    LostWrites.Result lost = LostWrites.check(ops, clients.finalReads(), clients.keys());
    Verdict verdict;
    String reason;
    if (analysis.verdict() == Verdict.INVALID) {
      verdict = Verdict.INVALID;
      reason = analysis.failure().map(k -> "key " + k.key() + " not linearizable: "
          + (k.evidence() != null ? k.evidence().op() + ": " + k.evidence().message()
              : k.cause())).orElse("not linearizable: " + analysis.cause());
    } else if (!lost.ok()) {
      verdict = Verdict.INVALID;
      reason = lost.lost().size() + " acknowledged writes lost, first " + lost.lost().get(0);
    } else if (diverged != null) {
      verdict = Verdict.INVALID;
      reason = diverged;
    } else if (analysis.verdict() == Verdict.UNKNOWN) {
      verdict = Verdict.UNKNOWN;
      reason = "the checker could not decide: " + analysis.cause();
    } else if (!complete) {
      verdict = Verdict.UNKNOWN;
      reason = unfinished;
    } else if (!lost.unread().isEmpty()) {
      verdict = Verdict.UNKNOWN;
      reason = lost.unread().size() + " keys had no final read"
          + (unfinished == null ? "" : "; " + unfinished);
    } else {
      verdict = Verdict.VALID;
      reason = "linearizable; " + lost.acknowledged() + " acknowledged writes all read";
    }
    return new SeedResult(seed, verdict, reason, clients.invoked(), nemesis.struck(), plan, ops,
        analysis, lost, time.now());
  }
}
