package io.partkit.verification.report;

import static org.assertj.core.api.Assertions.assertThat;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import clojure.lang.Keyword;
import clojure.lang.Symbol;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Runs the clojure.test suite of the partkit.checker namespace, so CI counts it. */
class ClojureApiTest {

  @Test
  void clojureTestsPass() {
    IFn require = Clojure.var("clojure.core", "require");
    require.invoke(Symbol.intern("clojure.test"));
    require.invoke(Symbol.intern("partkit.checker-test"));
    Map<?, ?> summary =
        (Map<?, ?>)
            Clojure.var("clojure.test", "run-tests").invoke(Symbol.intern("partkit.checker-test"));
    assertThat(((Number) summary.get(Keyword.intern("fail"))).longValue())
        .as("clojure.test failures: %s", summary)
        .isZero();
    assertThat(((Number) summary.get(Keyword.intern("error"))).longValue())
        .as("clojure.test errors: %s", summary)
        .isZero();
    assertThat(((Number) summary.get(Keyword.intern("pass"))).longValue())
        .as("clojure.test assertions: %s", summary)
        .isPositive();
    assertThat(((Number) summary.get(Keyword.intern("test"))).longValue())
        .as("clojure.test tests: %s", summary)
        .isGreaterThanOrEqualTo(10);
  }
}
