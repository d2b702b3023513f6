package io.partkit.verification.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The built-in models' steps, and the documented meaning of a read of nil in each. */
class ModelsTest {

  private static Op ok(String f, Object v) {
    return Op.of(1, 0, OpType.OK, f, v);
  }

  private static Op info(String f, Object v) {
    return Op.of(1, 0, OpType.INFO, f, v);
  }

  @SuppressWarnings("unchecked")
  private static <S> Step<S> step(Model<S> m, Object state, Op op) {
    return m.step((S) state, op);
  }

  private static Object next(Step<?> s) {
    assertThat(s).isInstanceOf(Step.Next.class);
    return ((Step.Next<?>) s).state();
  }

  @Test
  void registerOkReadOfNilIsAWildcardByDefaultAsInKnossos() {
    for (Model<Object> r :
        List.of(
            Models.register(5L), Models.casRegister(5L), Models.register(5L, NilReads.KNOSSOS))) {
      assertThat(next(step(r, 5L, ok("read", null)))).as("%s", r).isEqualTo(5L);
      assertThat(next(step(r, null, ok("read", null)))).as("%s", r).isNull();
      assertThat(step(r, 5L, ok("read", 4L))).as("%s", r).isInstanceOf(Step.Inconsistent.class);
    }
    assertThat(step(Models.named("cas-register", 5L), 5L, ok("read", null)))
        .isInstanceOf(Step.Next.class);
  }

  @Test
  void registerOkReadOfNilMeansNilWhenStrict() {
    Model<Object> r = Models.register(5L, NilReads.STRICT);
    assertThat(r.toString()).isEqualTo("(register 5 :strict-nil)");
    assertThat(step(r, 5L, ok("read", null))).isInstanceOf(Step.Inconsistent.class);
    assertThat(step(Models.casRegister(5L, NilReads.STRICT), 5L, ok("read", null)))
        .isInstanceOf(Step.Inconsistent.class);
    assertThat(step(Models.named("cas-register", 5L, NilReads.STRICT), 5L, ok("read", null)))
        .isInstanceOf(Step.Inconsistent.class);
    assertThat(next(step(r, null, ok("read", null)))).isNull();
    assertThat(next(step(r, 5L, info("read", null)))).isEqualTo(5L);
    assertThat(((Step.Inconsistent<?>) step(r, 5L, ok("read", 4L))).message())
        .isEqualTo("read 4 but the register holds 5");
  }

  @Test
  void casRegisterCasAndWrite() {
    Model<Object> r = Models.casRegister(0L);
    assertThat(next(step(r, 0L, ok("cas", List.of(0L, 1L))))).isEqualTo(1L);
    assertThat(step(r, 2L, ok("cas", List.of(0L, 1L)))).isInstanceOf(Step.Inconsistent.class);
    assertThat(next(step(r, 2L, ok("write", 7L)))).isEqualTo(7L);
    assertThat(step(Models.register(0L), 0L, ok("cas", List.of(0L, 1L))))
        .isInstanceOf(Step.Inconsistent.class);
  }

  @Test
  void multiRegisterReadsExactlyWhenOkAndIgnoresReadsWhenInfo() {
    Model<Map<Object, Object>> m = Models.multiRegister(Map.of("x", 0L));
    Object s =
        next(
            step(
                m,
                m.initialState(),
                ok("txn", List.of(List.of("write", "y", 2L), List.of("read", "x", 0L)))));
    assertThat(s).isEqualTo(Map.of("x", 0L, "y", 2L));
    assertThat(step(m, s, ok("txn", List.of(List.of("read", "z", 1L)))))
        .isInstanceOf(Step.Inconsistent.class);
    assertThat(next(step(m, s, ok("txn", List.of(java.util.Arrays.asList("read", "z", null))))))
        .isEqualTo(s);
    // Knossos' reading (the default): a read of nil from a register that holds a value is a
    // wildcard
    assertThat(next(step(m, s, ok("txn", List.of(java.util.Arrays.asList("read", "x", null))))))
        .isEqualTo(s);
    Model<Map<Object, Object>> strict = Models.multiRegister(Map.of("x", 0L), NilReads.STRICT);
    assertThat(step(strict, s, ok("txn", List.of(java.util.Arrays.asList("read", "x", null)))))
        .isInstanceOf(Step.Inconsistent.class);
    assertThat(
            next(step(strict, s, ok("txn", List.of(java.util.Arrays.asList("read", "z", null))))))
        .isEqualTo(s);
    assertThat(
            next(
                step(
                    m,
                    s,
                    info("txn", List.of(List.of("read", "x", 9L), List.of("write", "x", 3L))))))
        .isEqualTo(Map.of("x", 3L, "y", 2L));
  }

  @Test
  void mutex() {
    Model<Boolean> m = Models.mutex();
    assertThat(next(step(m, false, ok("acquire", null)))).isEqualTo(true);
    assertThat(step(m, true, ok("acquire", null))).isInstanceOf(Step.Inconsistent.class);
    assertThat(step(m, false, ok("release", null))).isInstanceOf(Step.Inconsistent.class);
  }

  @Test
  void setReadOfNilIsTheEmptySet() {
    Model<?> m = Models.set();
    Object s = next(step(m, Set.of(), ok("add", 1L)));
    assertThat(next(step(m, s, ok("read", List.of(1L))))).isEqualTo(Set.of(1L));
    assertThat(step(m, s, ok("read", null))).isInstanceOf(Step.Inconsistent.class);
    assertThat(next(step(m, Set.of(), ok("read", null)))).isEqualTo(Set.of());
  }

  @Test
  void queuesDequeueOfNilMeansEmpty() {
    Model<?> fifo = Models.fifoQueue();
    Object s = next(step(fifo, List.of(), ok("enqueue", 1L)));
    s = next(step(fifo, s, ok("enqueue", 2L)));
    assertThat(step(fifo, s, ok("dequeue", 2L))).isInstanceOf(Step.Inconsistent.class);
    assertThat(step(fifo, s, ok("dequeue", null))).isInstanceOf(Step.Inconsistent.class);
    assertThat(next(step(fifo, s, ok("dequeue", 1L)))).isEqualTo(List.of(2L));
    assertThat(next(step(fifo, s, info("dequeue", null)))).isEqualTo(List.of(2L));
    Model<?> bag = Models.unorderedQueue();
    Object b = next(step(bag, Map.of(), ok("enqueue", 1L)));
    b = next(step(bag, b, ok("enqueue", 2L)));
    assertThat(next(step(bag, b, ok("dequeue", 2L)))).isEqualTo(Map.of(1L, 1));
    assertThat(step(bag, b, ok("dequeue", null))).isInstanceOf(Step.Inconsistent.class);
  }

  @Test
  void kvGetOfNilIsTheEmptyString() {
    Model<?> kv = Models.kv("");
    Object s = kv.initialState();
    assertThat(next(step(kv, s, ok("get", null)))).isEqualTo(s);
    Object t = next(step(kv, s, ok("append", "ab")));
    t = next(step(kv, t, ok("append", "c")));
    assertThat(t).isEqualTo(next(step(kv, s, ok("put", "abc"))));
    assertThat(t.hashCode()).isEqualTo("abc".hashCode());
    assertThat(step(kv, t, ok("get", "ab"))).isInstanceOf(Step.Inconsistent.class);
  }

  @Test
  void namedModelsAndTheirErrors() {
    for (String n : Models.NAMES) {
      Object init = n.equals("multi-register") ? Map.of() : null;
      assertThat(Models.named(n, init).name()).isEqualTo(n);
    }
    assertThatThrownBy(() -> Models.named("stack", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "unknown model stack; known models: register, cas-register, multi-register, mutex, set,"
                + " fifo-queue, unordered-queue, kv");
    assertThatThrownBy(() -> Models.named("mutex", 1L))
        .hasMessageContaining("takes no initial state: 1");
    assertThatThrownBy(() -> Models.named("multi-register", 1L))
        .hasMessageContaining("must be a map");
  }

  private static io.partkit.verification.history.History using(String... fs) {
    List<Op> ops = new java.util.ArrayList<>();
    for (String f : fs) {
      ops.add(Op.of(ops.size(), 0, OpType.INVOKE, f, null));
      ops.add(Op.of(ops.size(), 0, OpType.OK, f, null));
    }
    return io.partkit.verification.history.History.of("test", ops);
  }

  @Test
  void aModelIsGuessedFromTheFunctionsAHistoryUses() {
    assertThat(Models.guessName(using("read", "write"))).isEqualTo("cas-register");
    assertThat(Models.guessName(using("read", "cas"))).isEqualTo("cas-register");
    assertThat(Models.guessName(using("txn", "read"))).isEqualTo("multi-register");
    assertThat(Models.guessName(using("put", "get"))).isEqualTo("kv");
    assertThat(Models.guessName(using("acquire", "release"))).isEqualTo("mutex");
    assertThat(Models.guessName(using("enqueue", "dequeue"))).isEqualTo("fifo-queue");
    assertThat(Models.guessName(using("add", "read"))).isEqualTo("set");
    for (String name : List.of("cas-register", "multi-register", "kv", "mutex", "fifo-queue",
        "set")) {
      assertThat(Models.NAMES).contains(name);
    }
  }

  @Test
  void aHistoryOfUnknownFunctionsNamesThemAndTheModels() {
    assertThatThrownBy(() -> Models.guessName(using("frob", "zap")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[frob, zap]")
        .hasMessageContaining("cas-register");
  }
}
