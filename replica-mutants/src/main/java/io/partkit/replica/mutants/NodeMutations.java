package io.partkit.replica.mutants;

import io.partkit.replica.Envelope;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Level;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Scan;
import io.partkit.replica.Record;
import io.partkit.replica.Replica;
import io.partkit.replica.Role;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The planted bugs of one node that sit between its driver and its unchanged core: what the core
 * is handed ({@link #inbound}), what of its messages leaves ({@link #outbound}) and what of its
 * records reaches the log ({@link #logged}). A driver that plants a mutant calls all three; one
 * that does not never makes an instance, so the production path has no branch for any of them.
 * One instance per node life: it remembers the requests it answered before the core did.
 *
 * <p>The simulator's driver and {@code partkit verify}'s mutant node process (the harness's
 * {@code mutant} option) share these, so a bug planted on real processes is the one the
 * simulator catches.
 */
public final class NodeMutations {

  /**
   * The mutants these rewrites plant on their own, with no simulated disk or control around them:
   * the ones a real node process can carry.
   */
  public static final Set<Mutant> PLANTED = java.util.Collections.unmodifiableSet(EnumSet.of(
      Mutant.UNLOGGED_WRITES, Mutant.ASYNC_REPLICATION, Mutant.READ_WITHOUT_CONFIRM,
      Mutant.REBASE_KEEPS_WRITES_AHEAD, Mutant.SPLIT_SERVES_OLD_NUMBERING));

  private final Mutant mutant;
  /** Requests answered before the core did: the core's own failure is dropped. */
  private final Set<Long> answeredEarly = new HashSet<>();

  /** The node-side rewrites of {@code mutant} (none for a mutant of the control or the disk). */
  public NodeMutations(Mutant mutant) {
    this.mutant = mutant;
  }

  /** The mutant planted. */
  public Mutant mutant() {
    return mutant;
  }

  /**
   * What the core is handed for {@code e}: {@code e} itself, a rewritten message, or null when the
   * planted bug answered it through {@code send} instead of the core.
   *
   * @param core the node's core, read only (the bugs answer from its local state)
   * @param self the node's number, the sender of what it answers
   */
  public Envelope inbound(Replica core, int self, Envelope e, Consumer<Envelope> send) {
    switch (mutant) {
      case REBASE_KEEPS_WRITES_AHEAD:
        if (e.message() instanceof Level l
            && core.stateName(l.partition()).equals(new Replica.StateName(l.fromEpoch(),
                l.fromLevel()))
            && core.seq(l.partition()) > l.seq()) {
          // the offer is taken as if it were at this copy's own seq: nothing is undone
          return new Envelope(e.from(), e.to(), new Level(l.partition(), l.epoch(), l.level(),
              l.fromEpoch(), l.fromLevel(), core.seq(l.partition()), List.of(),
              l.numbering()));
        }
        return e;
      case ASYNC_REPLICATION:
        if (e.message() instanceof Request r && r.kind() == Kind.PUT
            && core.role(r.partition()) == Role.PRIMARY) {
          // answered now; the core still replicates, and its own failure is dropped
          answeredEarly.add(r.id());
          send.accept(new Envelope(self, e.from(), new Reply(r.id(), Outcome.OK, null, null)));
        }
        return e;
      case READ_WITHOUT_CONFIRM:
        if (e.message() instanceof Request r && r.kind() == Kind.GET
            && core.role(r.partition()) == Role.PRIMARY && core.owns(r.partition(), r.key())) {
          send.accept(new Envelope(self, e.from(), new Reply(r.id(), Outcome.OK,
              core.localValue(r.partition(), r.key()).orElse(null), null)));
          return null;
        }
        if (e.message() instanceof Scan s && core.role(s.partition()) == Role.PRIMARY
            && core.modulus(s.partition()) == s.modulus()) {
          send.accept(new Envelope(self, e.from(), core.localPage(s)));
          return null;
        }
        return e;
      case SPLIT_SERVES_OLD_NUMBERING:
        if (e.message() instanceof Scan s && core.role(s.partition()) == Role.PRIMARY
            && core.modulus(s.partition()) != s.modulus()) {
          send.accept(new Envelope(self, e.from(), core.localPage(s)));
          return null;
        }
        if (e.message() instanceof Request r && r.kind() == Kind.GET
            && core.role(r.partition()) == Role.PRIMARY && !core.owns(r.partition(), r.key())) {
          send.accept(new Envelope(self, e.from(), new Reply(r.id(), Outcome.OK,
              core.localValue(r.partition(), r.key()).orElse(null), null)));
          return null;
        }
        return e;
      default:
        return e;
    }
  }

  /** Whether the core's message {@code e} leaves: not a failure of a request answered early. */
  public boolean outbound(Envelope e) {
    return !(e.message() instanceof Reply r && r.outcome() != Outcome.OK
        && answeredEarly.contains(r.id()));
  }

  /**
   * The records of {@code records} that reach the log: with {@link Mutant#UNLOGGED_WRITES}, none
   * that holds a client's write, though they count as durable when the rest are.
   */
  public List<Record> logged(List<Record> records) {
    if (mutant != Mutant.UNLOGGED_WRITES) {
      return records;
    }
    return records.stream().filter(r -> !(r instanceof Record.Written)).toList();
  }
}
