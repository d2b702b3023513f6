package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.bench.CasHistories;
import io.partkit.verification.bench.CrashedHistories;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link UnproducedState} against the brute force on small seeded histories with crashed writes
 * and cas at concurrency 1-3, half of them with one :ok read or cas changed to need a value that
 * only a crashed operation invoked later (or nothing) writes: every history it refutes is
 * invalid, it refutes many, and the checker answers invalid (these small ones the search
 * decides by itself first). On a history the search cannot refute, the checker answers with
 * this evidence.
 */
class UnproducedStateTest {

  @Test
  void decidesTheInvalidTwinOfACrashedHistoryTheSearchCannotRefute() {
    // 10k operations at concurrency 5, 1% of writes and cas crashed, one late read of 99
    // (CrashedHistories' crash-c5-n10k-bad): the search alone ran out of its time limit
    History h = CasHistories.corrupt(CrashedHistories.generate(2, 10_000, 5, 0.01, 5), 2);
    Analysis a = Linearizability.check(Models.casRegister(null), h,
        CheckOptions.defaults().withTimeLimit(Duration.ofMinutes(2)));
    assertThat(a.verdict()).as("%s", a.cause()).isEqualTo(Verdict.INVALID);
    Evidence e = a.failure().orElseThrow().evidence();
    assertThat(e.op().value()).isEqualTo(99L);
    assertThat(e.message()).startsWith("it needs the state 99,");
  }

  @ParameterizedTest(name = "c{0} values={1} init={2} {3} cas={4}")
  @CsvSource({"1, 2, nil, KNOSSOS, true", "1, 3, 1, STRICT, true", "2, 3, nil, STRICT, true",
      "3, 2, 0, KNOSSOS, true", "2, 3, 1, STRICT, false"})
  void refutesOnlyInvalidHistories(int concurrency, int values, String initText,
      NilReads nilReads, boolean cas) {
    RegisterSetup setup = RegisterSetup.of(cas, initText, nilReads);
    Model<?> model = setup.model();
    int refuted = 0;
    long firstSeed = 0x0D5EL * concurrency + values + (cas ? 0 : 3);
    for (long seed = firstSeed; seed < firstSeed + 600; seed++) {
      History h = withUnwritten(CrashedOpsDifferentialTest.generate(seed, concurrency, values, cas,
          6 + (int) (seed % 6)), seed, values);
      Evidence e = UnproducedState.refute(model, Paired.ofWellFormed(h.ops()));
      if (e == null) {
        continue;
      }
      refuted++;
      assertThat(setup.linearizable(h)).as("seed %d: refuted but valid: %s", seed, h.ops())
          .isFalse();
      assertThat(Linearizability.check(model, h, CheckOptions.defaults(), 0).verdict())
          .as("seed %d", seed).isEqualTo(Verdict.INVALID);
    }
    assertThat(refuted).as("histories refuted").isGreaterThan(100);
  }

  /**
   * With probability one half, one :ok read's or cas' needed value becomes {@code values} (which
   * the generator never writes) and, with probability one half again, a crashed write of it is
   * added after that operation, so that something writes it, but too late.
   */
  private static History withUnwritten(History h, long seed, int values) {
    // mixed: java.util.Random's first draws for nearby seeds agree
    Random rnd = new Random(seed * 0x9E3779B97F4A7C15L);
    List<Op> out = new ArrayList<>(h.ops());
    if (rnd.nextBoolean()) {
      return h;
    }
    List<Integer> needs = new ArrayList<>();
    for (int i = 0; i < out.size(); i++) {
      Op o = out.get(i);
      if (o.type() == OpType.OK && !o.f().equals("write")) {
        needs.add(i);
      }
    }
    if (needs.isEmpty()) {
      return h;
    }
    int i = needs.get(rnd.nextInt(needs.size()));
    Op o = out.get(i);
    long v = values;
    out.set(i, o.withValue(o.f().equals("read") ? (Object) v
        : List.of(v, ((List<?>) o.value()).get(1))));
    if (rnd.nextBoolean()) {
      out.add(new Op(out.size(), 99L, OpType.INVOKE, "write", v, null, -1, 0));
      out.add(new Op(out.size(), 99L, OpType.INFO, "write", v, null, -1, 0));
    }
    return History.of(h.source() + " unwritten", out);
  }
}
