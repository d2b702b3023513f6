package io.partkit.verification.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Feeds the readers random, mutated and truncated input: they return a history or throw the
 * documented HistoryParseException, nothing else.
 */
class ReaderFuzzTest {
  private static final String[] SEEDS = {
    "{:process 0, :type :invoke, :f :cas, :value [1 2], :key \"k\", :time 12}\n"
        + "{:process 0, :type :ok, :f :cas, :value [1 2]}\n",
    "[{:process 0, :type :invoke, :f :txn, :value [[:read :x nil]]} #jepsen.history.Op{:process 0"
        + " :type :ok :f :txn :value [[:read :x 1]]}]",
    "INFO  jepsen.util - 0\t:invoke\t:cas\t[3 0]\n"
        + "INFO  jepsen.util - 0\t:ok\t:cas\t[3 0]\n"
        + "INFO  jepsen.util - 4\t:info\t:write\t:timed-out\n",
    "{\"process\": 0, \"type\": \"invoke\", \"f\": \"put\", \"key\": \"a\", \"value\": \"x\"}\n"
        + "{\"process\": 0, \"type\": \"ok\", \"f\": \"put\", \"value\": [1, {\"b\": null}]}\n",
  };
  private static final String ALPHABET = "{}[]()#:;\\\"' \n\t,0123456789-+.eE/abcfkprstvx^@~`";

  static LongStream seeds() {
    return LongStream.range(0, 40).map(i -> 0xF022L + i);
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void readersOnlyThrowTheParseException(long seed) {
    Random rnd = new Random(seed);
    int parsed = 0;
    for (int i = 0; i < 250; i++) {
      String text = mutate(SEEDS[rnd.nextInt(SEEDS.length)], rnd);
      try {
        History h = Histories.parse("fuzz", text);
        // an empty collection ([] or ()) is a valid empty history; any other text yields operations
        assertThat(!h.ops().isEmpty() || text.matches("(?s)[\\s,]*(;[^\n]*\n[\\s,]*)*[\\[(].*"))
            .as("seed %d case %d: %s", seed, i, text).isTrue();
        h.validate(); // validation of whatever was read must not throw either
        parsed++;
      } catch (HistoryParseException e) {
        assertThat(e.getMessage()).as("seed %d case %d", seed, i).startsWith("fuzz:");
      } catch (RuntimeException | StackOverflowError e) {
        fail("seed " + seed + " case " + i + ": " + e + " on input " + text, e);
      }
    }
    assertThat(parsed).as("seed %d: some inputs should still parse", seed).isPositive();
  }

  @org.junit.jupiter.api.Test
  void absurdNestingIsAParseErrorNotAStackOverflow() {
    String edn = "{:process 0, :type :invoke, :f :read, :value " + "[".repeat(50_000) + "}";
    String json = "{\"process\": 0, \"value\": " + "[".repeat(50_000) + "}";
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Histories.parse("deep.edn", edn))
        .isInstanceOf(HistoryParseException.class)
        .hasMessageStartingWith("deep.edn:1: expected valid EDN");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Histories.parse("deep.jsonl", json))
        .isInstanceOf(HistoryParseException.class)
        .hasMessageStartingWith("deep.jsonl:1: expected one JSON object per line");
  }

  private static String mutate(String s, Random rnd) {
    StringBuilder sb = new StringBuilder(s);
    switch (rnd.nextInt(4)) {
      case 0: // truncate
        return s.substring(0, rnd.nextInt(s.length() + 1));
      case 1: // random text
        StringBuilder r = new StringBuilder();
        for (int i = rnd.nextInt(60); i > 0; i--) {
          r.append(ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
        }
        return r.toString();
      default: // point mutations
        for (int k = 1 + rnd.nextInt(3); k > 0 && sb.length() > 0; k--) {
          int at = rnd.nextInt(sb.length());
          if (rnd.nextBoolean()) {
            sb.setCharAt(at, ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
          } else {
            sb.deleteCharAt(at);
          }
        }
        return sb.toString();
    }
  }
}
