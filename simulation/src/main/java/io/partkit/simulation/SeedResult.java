package io.partkit.simulation;

import io.partkit.harness.check.LostWrites;
import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.Op;
import java.util.List;

/**
 * One seed's outcome.
 *
 * @param verdict valid, invalid (not linearizable, or an acknowledged write lost) or unknown
 * @param reason why, in one line
 * @param ops client operations invoked
 * @param faults faults that struck (planned ones that could not, such as losing a node that
 *     holds the only level copy, are not counted)
 * @param plan the seed's fault plan (what a replay or a shrink starts from)
 * @param history every event, nemesis included, in order
 * @param virtualMillis virtual time the seed ran, heal, recovery and final reads included
 */
public record SeedResult(long seed, Verdict verdict, String reason, int ops, int faults,
    List<Fault> plan, List<Op> history, Analysis linearizability, LostWrites.Result lostWrites,
    long virtualMillis) {

  public SeedResult {
    plan = List.copyOf(plan);
    history = List.copyOf(history);
  }
}
