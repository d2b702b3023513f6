package io.partkit.knossos;

import static org.assertj.core.api.Assertions.assertThat;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import clojure.lang.Keyword;
import clojure.lang.Symbol;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs the Knossos-style clojure.test suites of the drop-in, so CI counts them. */
class KnossosApiTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "knossos.model-test",
        "knossos.competition-test",
        "knossos.jepsen-test",
        "knossos.history-ops-test"
      })
  void clojureSuitePasses(String ns) {
    IFn require = Clojure.var("clojure.core", "require");
    require.invoke(Symbol.intern("clojure.test"));
    require.invoke(Symbol.intern(ns));
    Map<?, ?> summary =
        (Map<?, ?>) Clojure.var("clojure.test", "run-tests").invoke(Symbol.intern(ns));
    assertThat(count(summary, "fail")).as("%s failures: %s", ns, summary).isZero();
    assertThat(count(summary, "error")).as("%s errors: %s", ns, summary).isZero();
    assertThat(count(summary, "test")).as("%s tests: %s", ns, summary).isGreaterThanOrEqualTo(3);
    assertThat(count(summary, "pass"))
        .as("%s assertions: %s", ns, summary)
        .isGreaterThanOrEqualTo(10);
  }

  private static long count(Map<?, ?> summary, String key) {
    return ((Number) summary.get(Keyword.intern(key))).longValue();
  }
}
