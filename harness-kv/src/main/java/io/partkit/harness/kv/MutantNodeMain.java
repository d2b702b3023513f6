package io.partkit.harness.kv;

import io.partkit.replica.Envelope;
import io.partkit.replica.Record;
import io.partkit.replica.Replica;
import io.partkit.replica.mutants.Mutant;
import io.partkit.replica.mutants.NodeMutations;
import io.partkit.replica.node.Interposer;
import io.partkit.replica.node.ReplicaNodeMain;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * A replica node process with a planted bug, for {@code partkit verify --system kv --option
 * mutant=NAME}: {@code MutantNodeMain --mutant NAME} followed by {@link ReplicaNodeMain}'s
 * arguments runs that node with the simulator's rewrites of the mutant ({@link NodeMutations})
 * between its driver and its core. The production node ({@link ReplicaNodeMain}) has no such
 * option: a planted bug runs only in a process started as this class.
 */
public final class MutantNodeMain {

  private MutantNodeMain() {}

  /** Entry point. */
  public static void main(String[] args) throws IOException, InterruptedException {
    if (args.length < 2 || !args[0].equals("--mutant")) {
      System.err.println("usage: MutantNodeMain --mutant <" + String.join("|", names())
          + "> <ReplicaNodeMain's arguments>");
      System.exit(2);
      return;
    }
    Mutant mutant = Mutant.named(args[1]).filter(NodeMutations.PLANTED::contains).orElse(null);
    if (mutant == null) {
      System.err.println("MutantNodeMain: no node-side mutant '" + args[1] + "' (known: "
          + String.join(", ", names()) + ")");
      System.exit(2);
      return;
    }
    ReplicaNodeMain.run(Arrays.copyOfRange(args, 2, args.length), interposer(mutant));
  }

  /** The names of the mutants a node process can carry, in the simulator's order. */
  static List<String> names() {
    return Arrays.stream(Mutant.values()).filter(NodeMutations.PLANTED::contains)
        .map(Mutant::label).toList();
  }

  private static Interposer interposer(Mutant mutant) {
    NodeMutations mutations = new NodeMutations(mutant);
    return new Interposer() {
      @Override
      public Envelope inbound(Replica core, int self, Envelope e, Consumer<Envelope> send) {
        return mutations.inbound(core, self, e, send);
      }

      @Override
      public boolean outbound(Envelope e) {
        return mutations.outbound(e);
      }

      @Override
      public List<Record> logged(List<Record> records) {
        return mutations.logged(records);
      }
    };
  }
}
