package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Record.LevelBegun;
import io.partkit.replica.Record.Written;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplyBarriersTest {

  static final int NODE = 0;
  static final int CLIENT = 1_000;
  static final Bytes A = Bytes.ofLong(1);
  static final Bytes B = Bytes.ofLong(2);

  private final ReplyBarriers barriers = new ReplyBarriers();

  private void ask(int client, long id, int partition, Bytes key) {
    barriers.stepped(new Envelope(client, NODE, new Request(id, partition, Kind.GET, key, null,
        null)));
  }

  private long reply(int client, long id, long last) {
    return barriers.barrier(new Envelope(NODE, client, new Reply(id, Outcome.OK, null, null)),
        last);
  }

  private static Written write(int partition, Bytes key) {
    return new Written(partition, 1, 1, 1, key, Bytes.ofLong(9));
  }

  @Test
  void aReplyWaitsForItsKeysLastWriteNotForOtherKeys() {
    barriers.appended(List.of(write(0, A), write(0, B), write(1, A)), 13);
    ask(CLIENT, 1, 0, A);
    ask(CLIENT, 2, 0, B);
    ask(CLIENT + 1, 1, 1, A);
    ask(CLIENT + 1, 2, 2, A);
    assertThat(reply(CLIENT, 1, 13)).as("key A of partition 0, written at 11").isEqualTo(11);
    assertThat(reply(CLIENT, 2, 13)).as("key B, written at 12").isEqualTo(12);
    assertThat(reply(CLIENT + 1, 1, 13)).as("key A of partition 1").isEqualTo(13);
    assertThat(reply(CLIENT + 1, 2, 13)).as("a key no pending write holds").isEqualTo(0);
  }

  @Test
  void aRecordThatIsNotAWriteHoldsUpEveryReplyAfterIt() {
    barriers.appended(List.of(write(0, A), new LevelBegun(3, 2, 2), write(0, B)), 3);
    ask(CLIENT, 1, 5, B);
    ask(CLIENT, 2, 0, B);
    assertThat(reply(CLIENT, 1, 3)).as("another partition, after a level begun").isEqualTo(2);
    assertThat(reply(CLIENT, 2, 3)).isEqualTo(3);
  }

  @Test
  void otherMessagesAndUnknownRepliesWaitForEveryRecord() {
    barriers.appended(List.of(write(0, A)), 5);
    assertThat(barriers.barrier(new Envelope(NODE, 2, new Message.Ack(0, 1, 1, 1)), 5))
        .as("a message to a node").isEqualTo(5);
    assertThat(reply(CLIENT, 7, 5)).as("a reply to a request never stepped").isEqualTo(5);
    ask(CLIENT, 8, 1, B);
    assertThat(reply(CLIENT, 8, 5)).isEqualTo(0);
    assertThat(reply(CLIENT, 8, 5)).as("a second reply to one request").isEqualTo(5);
  }

  @Test
  void oneIdAskedForTwoKeysWaitsForEveryRecord() {
    barriers.appended(List.of(write(0, A)), 5);
    ask(CLIENT, 1, 1, B);
    ask(CLIENT, 1, 2, B);
    assertThat(reply(CLIENT, 1, 5)).isEqualTo(5);
    ask(CLIENT, 2, 1, B);
    ask(CLIENT, 2, 1, B);
    assertThat(reply(CLIENT, 2, 5)).as("the same request again").isEqualTo(0);
  }

  @Test
  void durableWritesAreForgottenAndTheLaterOfTwoWritesCounts() {
    barriers.appended(List.of(write(0, A)), 1);
    barriers.appended(List.of(write(0, A), write(0, B)), 3);
    barriers.durable(1);
    assertThat(barriers.pendingWrites()).isEqualTo(2);
    ask(CLIENT, 1, 0, A);
    assertThat(reply(CLIENT, 1, 3)).isEqualTo(2);
    barriers.durable(3);
    assertThat(barriers.pendingWrites()).isZero();
    ask(CLIENT, 2, 0, A);
    assertThat(reply(CLIENT, 2, 3)).isZero();
    assertThat(barriers.askedCount()).isZero();
  }
}
