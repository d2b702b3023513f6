package io.partkit.replica.mutants;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Bytes;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Record;
import io.partkit.replica.Replica;
import io.partkit.replica.Timing;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rewrites alone; that each one is caught is the simulator's test ({@code SimulationTest})
 * and, on real processes, the harness's ({@code KvSystemVerifyTest}).
 */
class NodeMutationsTest {

  private static final Record BORN = new Record.Born(7);
  private static final Record WRITTEN = new Record.Written(0, 1, 0, 1, Bytes.ofLong(1),
      Bytes.ofLong(2));

  @Test
  void unloggedWritesKeepEveryRecordButWritesOutOfTheLog() {
    assertThat(new NodeMutations(Mutant.UNLOGGED_WRITES).logged(List.of(BORN, WRITTEN)))
        .containsExactly(BORN);
    for (Mutant m : Mutant.values()) {
      if (m != Mutant.UNLOGGED_WRITES) {
        assertThat(new NodeMutations(m).logged(List.of(BORN, WRITTEN))).as(m.label())
            .containsExactly(BORN, WRITTEN);
      }
    }
  }

  @Test
  void aNodeThatLeadsNothingIsHandedEveryRequestUnchangedAndAnswersNothingEarly() {
    Replica core = new Replica(0, Timing.DEFAULT);
    Envelope put = new Envelope(1_000_000, 0, new Request(9, 3, Kind.PUT, Bytes.ofLong(1), null,
        Bytes.ofLong(2)));
    Envelope get = new Envelope(1_000_000, 0, new Request(10, 3, Kind.GET, Bytes.ofLong(1), null,
        null));
    for (Mutant m : NodeMutations.PLANTED) {
      NodeMutations mutations = new NodeMutations(m);
      List<Envelope> sent = new ArrayList<>();
      assertThat(mutations.inbound(core, 0, put, sent::add)).as(m.label()).isSameAs(put);
      assertThat(mutations.inbound(core, 0, get, sent::add)).as(m.label()).isSameAs(get);
      assertThat(sent).as(m.label()).isEmpty();
      Envelope refused = new Envelope(0, 1_000_000, new Reply(9, Outcome.FAIL, null, "no"));
      assertThat(mutations.outbound(refused)).as(m.label()).isTrue();
    }
  }

  @Test
  void onlyTheNodeSideMutantsArePlantedOnTheirOwn() {
    assertThat(NodeMutations.PLANTED).contains(Mutant.UNLOGGED_WRITES, Mutant.ASYNC_REPLICATION)
        .doesNotContain(Mutant.ACK_BEFORE_SYNC, Mutant.CONTROL_ACTS_BEFORE_DURABLE,
            Mutant.LEVEL_ON_CONFIGURE);
  }
}
