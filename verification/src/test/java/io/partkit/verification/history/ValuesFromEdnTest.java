package io.partkit.verification.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link Values#fromEdn}: one EDN value, read as a history's values are, or a clear error. */
class ValuesFromEdnTest {

  @Test
  void readsOneValueToTheHistoriesPlainValues() throws Exception {
    assertThat(Values.fromEdn("--init", "0")).isEqualTo(0L);
    assertThat(Values.fromEdn("--init", "nil")).isNull();
    assertThat(Values.fromEdn("--init", "{:x 0 :y 0}")).isEqualTo(Map.of("x", 0L, "y", 0L));
    assertThat(Values.fromEdn("--init", " [1 :a \"b\" 2.5 true] ; a comment\n"))
        .isEqualTo(List.of(1L, "a", "b", 2.5, true));
    assertThat(Values.fromEdn("--init", "#{1 2}")).isEqualTo(Set.of(1L, 2L));
    assertThat(Values.fromEdn("--init", "99999999999999999999"))
        .isEqualTo(new BigInteger("99999999999999999999"));
    // a value read here equals the same value read in a history
    History h = Histories.parse("h.edn", "{:process 0, :type :invoke, :f :w, :value {:x [1 2]}}");
    assertThat(Values.fromEdn("--init", "{:x [1 2]}")).isEqualTo(h.ops().get(0).value());
    Map<String, Object> nil = new HashMap<>();
    nil.put("x", null);
    assertThat(Values.fromEdn("--init", "{:x nil}")).isEqualTo(nil);
  }

  @Test
  void malformedValueNamesWhatWasWrongAndWhere() {
    assertThatThrownBy(() -> Values.fromEdn("--init", "{:x 0 :y"))
        .isInstanceOf(HistoryParseException.class)
        .hasMessageStartingWith("--init:1: expected valid EDN: ")
        .hasMessageContaining("EOF")
        .hasMessageEndingWith("(reading stopped at the end of the text)");
    assertThatThrownBy(() -> Values.fromEdn("--init", "[1 2}"))
        .hasMessageStartingWith("--init:1: expected valid EDN: ")
        .hasMessageContaining("Unmatched delimiter")
        .hasMessageEndingWith("(reading stopped at column 6)");
    assertThatThrownBy(() -> Values.fromEdn("--init", "[1\n 2\n #{1 1}]"))
        .hasMessageStartingWith("--init:3: expected valid EDN: ")
        .hasMessageContaining("Duplicate key: 1");
  }

  @Test
  void moreThanOneValueOrNoneIsAnError() {
    assertThatThrownBy(() -> Values.fromEdn("--init", "1 2"))
        .isInstanceOf(HistoryParseException.class)
        .hasMessage("--init:1: expected one EDN value, got extra text: 1 2"
            + " (reading stopped at column 3)");
    assertThatThrownBy(() -> Values.fromEdn("--init", " "))
        .isInstanceOf(HistoryParseException.class)
        .hasMessage("--init:1: expected an EDN value, got nothing");
    assertThatThrownBy(() -> Values.fromEdn("--init", "; only a comment"))
        .isInstanceOf(HistoryParseException.class)
        .hasMessage("--init:1: unexpected end of file: expected an EDN value"
            + " (reading stopped at the end of the text)");
  }

  @Test
  void keepsTheReadersBoundOnHugeIntegers() {
    char[] digits = new char[DigitBound.MAX_DIGITS + 1];
    Arrays.fill(digits, '7');
    assertThatThrownBy(() -> Values.fromEdn("--init", "[" + new String(digits) + "]"))
        .isInstanceOf(HistoryParseException.class)
        .hasMessageStartingWith("--init:1: expected a number of at most 1000 digits");
    assertThatThrownBy(() -> Values.fromEdn("--init", "#{:a :b}}"))
        .hasMessageContaining("got extra text");
  }
}
