package io.partkit.verification.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Writing then reading gives the same operations, in every format, for seeded random histories. */
class WritersTest {

  static LongStream seeds() {
    return LongStream.range(0, 20).map(i -> 0x3E17E5L + i);
  }

  static History random(long seed) {
    Random rnd = new Random(seed);
    List<Op> ops = new ArrayList<>();
    Object[] values = {null, 0L, -7L, "x 0 1 y", "quote\"back\\slash", List.of(1L, 2L),
        List.of(List.of("read", "x", 1L)), java.util.Map.of("a", List.of(true, 2.5))};
    for (int i = 0; i < 30; i++) {
      Object process = rnd.nextInt(10) == 0 ? (Object) "nemesis" : (Object) (long) rnd.nextInt(5);
      OpType type = OpType.values()[rnd.nextInt(4)];
      Object key = rnd.nextBoolean() ? null : (Object) ("k" + rnd.nextInt(3));
      ops.add(
          new Op(
              i,
              process,
              type,
              rnd.nextBoolean() ? "read" : "cas",
              values[rnd.nextInt(values.length)],
              key,
              rnd.nextBoolean() ? -1 : rnd.nextInt(1_000_000),
              0));
    }
    return History.of("random", ops);
  }

  private static List<Op> withoutLines(List<Op> ops, boolean keepKeyAndTime) {
    return ops.stream().map(o -> new Op(o.index(), o.process(), o.type(), o.f(), o.value(),
        keepKeyAndTime ? o.key() : null, keepKeyAndTime ? o.time() : -1, 0)).toList();
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void ednAndJsonLinesRoundTrip(long seed) throws Exception {
    History h = random(seed);
    for (Histories.Format f : List.of(Histories.Format.EDN, Histories.Format.JSON_LINES)) {
      History back = Histories.parse("rt", Histories.write(h, f));
      assertThat(withoutLines(back.ops(), true)).as("seed %d %s", seed, f).isEqualTo(h.ops());
    }
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void jepsenLogRoundTripsWhatTheLogCarries(long seed) throws Exception {
    History h = random(seed);
    History back = Histories.parse("rt.log", Histories.write(h, Histories.Format.JEPSEN_LOG));
    // a log line has no key, time or index: the index is the position
    assertThat(withoutLines(back.ops(), false))
        .as("seed %d", seed)
        .isEqualTo(withoutLines(h.ops(), false));
    assertThat(back.ops().get(3).line()).isEqualTo(4);
  }

  @org.junit.jupiter.api.Test
  void setsBecomeArraysInJson() throws Exception {
    History h = History.of("s", List.of(Op.of(0, 0, OpType.OK, "read", Set.of(1L))));
    assertThat(Histories.write(h, Histories.Format.JSON_LINES)).contains("\"value\":[1]");
    assertThat(Histories.write(h, Histories.Format.EDN)).contains(":value #{1}");
  }
}
