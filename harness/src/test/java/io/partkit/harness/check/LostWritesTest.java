package io.partkit.harness.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LostWritesTest {

  private final List<Op> ops = new ArrayList<>();

  private Op op(long process, OpType type, String f, Object value) {
    Op op = new Op(ops.size(), process, type, f, value, 7L, ops.size(), 0);
    ops.add(op);
    return op;
  }

  @Test
  void aWriteAcknowledgedAfterTheFinalValuesWriterEndedIsLost() {
    op(0, OpType.INVOKE, "write", 1L);
    op(0, OpType.OK, "write", 1L);
    op(0, OpType.INVOKE, "write", 2L); // began after write 1 ended
    op(0, OpType.OK, "write", 2L);
    op(1, OpType.INVOKE, "read", null);
    Op read = op(1, OpType.OK, "read", 1L);

    LostWrites.Result r = LostWrites.check(ops, Map.of(7L, read), List.of(7L));

    assertThat(r.acknowledged()).isEqualTo(2);
    assertThat(r.lost()).singleElement().satisfies(l -> {
      assertThat(l.value()).isEqualTo(2L);
      assertThat(l.invokeIndex()).isEqualTo(2);
    });
  }

  @Test
  void aWriteConcurrentWithTheFinalValuesWriterIsNotLost() {
    op(0, OpType.INVOKE, "write", 1L);
    op(1, OpType.INVOKE, "write", 2L);
    op(1, OpType.OK, "write", 2L);
    op(0, OpType.OK, "write", 1L); // overlaps write 2: either order is linearizable
    op(2, OpType.INVOKE, "read", null);
    Op read = op(2, OpType.OK, "read", 1L);

    assertThat(LostWrites.check(ops, Map.of(7L, read), List.of(7L)).lost()).isEmpty();
  }

  @Test
  void anAbsentKeyLosesEveryAcknowledgedWriteAndCasCountsItsNewValue() {
    op(0, OpType.INVOKE, "write", 1L);
    op(0, OpType.OK, "write", 1L);
    op(0, OpType.INVOKE, "cas", List.of(1L, 2L));
    op(0, OpType.OK, "cas", List.of(1L, 2L));
    op(1, OpType.INVOKE, "read", null);
    Op read = op(1, OpType.OK, "read", null);

    LostWrites.Result r = LostWrites.check(ops, Map.of(7L, read), List.of(7L));

    assertThat(r.lost()).extracting(LostWrites.Lost::value).containsExactly(1L, 2L);
  }

  @Test
  void aFailedWriteExplainsNothingAndAnUnreadKeyIsNotJudged() {
    op(0, OpType.INVOKE, "write", 1L);
    op(0, OpType.OK, "write", 1L);
    op(0, OpType.INVOKE, "write", 2L);
    op(0, OpType.FAIL, "write", 2L);
    op(1, OpType.INVOKE, "read", null);
    Op read = op(1, OpType.OK, "read", 2L);

    LostWrites.Result r = LostWrites.check(ops, Map.of(7L, read), List.of(7L));
    assertThat(r.lost()).singleElement()
        .satisfies(l -> assertThat(l.why()).contains("no write could have set"));

    LostWrites.Result unread = LostWrites.check(ops, Map.of(), List.of(7L));
    assertThat(unread.unread()).containsExactly(7L);
    assertThat(unread.lost()).isEmpty();
  }

  @Test
  void anUnknownWriteMayHaveHappenedSoItCanExplainTheFinalValue() {
    op(0, OpType.INVOKE, "write", 1L);
    op(0, OpType.OK, "write", 1L);
    op(0, OpType.INVOKE, "write", 2L);
    op(0, OpType.INFO, "write", 2L);
    op(1, OpType.INVOKE, "read", null);
    Op read = op(1, OpType.OK, "read", 2L);

    assertThat(LostWrites.check(ops, Map.of(7L, read), List.of(7L)).lost()).isEmpty();
  }
}
