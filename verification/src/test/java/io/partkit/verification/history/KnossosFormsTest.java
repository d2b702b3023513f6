package io.partkit.verification.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every shape of history Knossos and Jepsen write, and the bounds that keep reading cheap. */
class KnossosFormsTest {
  @TempDir
  Path dir;

  private static final String MAPS =
      """
      {:process 0, :type :invoke, :f :write, :value 1}
      {:process 0, :type :ok, :f :write, :value 1}
      {:process 1, :type :invoke, :f :read, :value nil}
      {:process 1, :type :ok, :f :read, :value 1}
      """;

  private static List<Op> plain(History h) {
    return h.ops().stream()
        .map(o -> new Op(o.index(), o.process(), o.type(), o.f(), o.value(), o.key(), o.time(), 0))
        .toList();
  }

  @Test
  void aListAVectorOneMapPerLineAndTuplesAreTheSameHistory() throws Exception {
    History lines = Histories.parse("h.edn", MAPS);
    History list = Histories.parse("h.edn", "(" + MAPS + ")");
    History vector = Histories.parse("h.edn", "[" + MAPS + "]");
    History tupleLines =
        Histories.parse(
            "h.edn",
            """
            [0 :invoke :write 1]
            [0 :ok :write 1]
            [1 :invoke :read nil]
            [1 :ok :read 1]
            """);
    History tupleVector =
        Histories.parse(
            "h.edn",
            "; Knossos' test data\n[[0 :invoke :write 1] [0 :ok :write 1]\n"
                + " [1 :invoke :read nil] [1 :ok :read 1]]");
    assertThat(plain(lines)).hasSize(4);
    for (History h : List.of(list, vector, tupleLines, tupleVector)) {
      assertThat(plain(h)).isEqualTo(plain(lines));
    }
    assertThat(tupleLines.ops().get(3).line()).isEqualTo(4);
    History headed = Histories.parse("h.edn", "; " + "x".repeat(100_000) + "\n\n[" + MAPS + "]");
    assertThat(plain(headed)).isEqualTo(plain(lines));
    assertThat(headed.ops().get(1).line()).isEqualTo(4);
    assertThat(list.ops().get(0).line()).isEqualTo(1);
  }

  @Test
  void aTupleOfTheWrongShapeNamesBothForms() {
    assertThatThrownBy(() -> Histories.parse("t.edn", "[0 :invoke :write 1]\n[0 :ok :write]\n"))
        .isInstanceOf(HistoryParseException.class)
        .hasMessageStartingWith("t.edn:2: expected an operation map like")
        .hasMessageContaining("or a tuple like [0 :invoke :read nil]");
  }

  @Test
  void instUuidAndUnknownTagsAreKeptAsValuesNotRejected() throws Exception {
    History h =
        Histories.parse(
            "h.edn",
            """
            {:process 0, :type :invoke, :f :write, :value 1,
             :time #inst "2024-01-02T03:04:05.000-00:00"}
            {:process 0, :type :ok, :f :write, :value 1,
             :id #uuid "6ba7b810-9dad-11d1-80b4-00c04fd430c8", :x #my/tag [1]}
            {:process 1, :type :invoke, :f :read, :value nil, :error #inst "not even a date"}
            {:process 1, :type :ok, :f :read, :value #my.app/point [1 2]}
            """);
    assertThat(h.ops()).hasSize(4);
    assertThat(h.ops().get(0).time()).isEqualTo(-1); // a :time that is not nanoseconds is not used
    assertThat(h.ops().get(3).value()).isEqualTo(new TaggedValue("my.app/point", List.of(1L, 2L)));
    assertThat(Values.toEdn(h.ops().get(3).value())).isEqualTo("#my.app/point [1 2]");
  }

  @Test
  void anEmptyCollectionIsAnEmptyHistoryAndNoHistoryIsBadInput() throws Exception {
    assertThat(Histories.parse("e.edn", "[]").ops()).isEmpty();
    assertThat(Histories.parse("e.edn", " ; nothing yet\n( )\n").ops()).isEmpty();
    assertThatThrownBy(() -> Histories.parse("e.edn", "; only a comment\n"))
        .isInstanceOf(HistoryParseException.class).hasMessageContaining("no operations found");
    assertThatThrownBy(() -> Histories.parse("e.edn", "")).isInstanceOf(HistoryParseException.class)
        .hasMessageContaining("e.edn:1: empty file");
    assertThatThrownBy(() -> Histories.fromMaps("api", null))
        .isInstanceOf(HistoryParseException.class)
        .hasMessage("api:0: " + Histories.NO_HISTORY);
    assertThat(Histories.fromMaps("api", List.of()).ops()).isEmpty();
  }

  @Test
  void aNumberOfMoreThanAThousandDigitsIsRejectedQuicklyWithItsLine() throws Exception {
    String huge = "9".repeat(1_000_000);
    for (String text :
        List.of(
            MAPS + "{:process 2, :type :invoke, :f :write, :value " + huge + "}\n",
            "[" + MAPS + "{:process 2, :type :invoke, :f :write, :value " + huge + "}]",
            MAPS + "{:process 2, :type :invoke, :f :write, :value 1." + huge + "}\n")) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> Histories.parse("big.edn", text))
          .isInstanceOf(HistoryParseException.class)
          .hasMessage(
              "big.edn:5: expected a number of at most 1000 digits (a longer one would take minutes"
                  + " to read)");
      assertThat((System.nanoTime() - start) / 1_000_000).as("ms to reject").isLessThan(2_000);
    }
    String log =
        "INFO  jepsen.util - 0\t:invoke\t:write\t1\nINFO  jepsen.util - 0\t:ok\t:write\t"
            + huge
            + "\n";
    assertThatThrownBy(() -> Histories.parse("big.log", log))
        .isInstanceOf(HistoryParseException.class)
        .hasMessageStartingWith("big.log:2: expected a number of at most 1000 digits");
    // a 1000-digit number, and digits in strings and comments, are fine
    String ok = "; " + huge + "\n{:process 0, :type :invoke, :f :write, :value " + "7".repeat(1000)
        + ", :note \"" + huge + "\"}\n";
    assertThat(Histories.parse("ok.edn", ok).ops().get(0).value())
        .isEqualTo(new java.math.BigInteger("7".repeat(1000)));
  }

  @Test
  void readsAFileAsAStreamWithTheSameResultAsText() throws Exception {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 20_000; i++) { // longer than every read-ahead buffer
      sb.append("{:process ")
          .append(i % 5)
          .append(", :type :invoke, :f :write, :value ")
          .append(i)
          .append("}\n");
      sb.append("{:process ")
          .append(i % 5)
          .append(", :type :ok, :f :write, :value ")
          .append(i)
          .append("}\n");
    }
    Path f = dir.resolve("long.edn");
    Files.writeString(f, "\uFEFF" + sb);
    History fromFile = Histories.read(f);
    assertThat(fromFile.ops()).hasSize(40_000);
    assertThat(fromFile.ops().get(39_999).line()).isEqualTo(40_000);
    assertThat(fromFile.ops())
        .isEqualTo(Histories.read("long.edn", new StringReader(sb.toString())).ops());
    assertThat(fromFile.source()).isEqualTo(f.toString());
  }

  // --- jepsen.independent -------------------------------------------------------------------

  private static final String INDEPENDENT =
      """
      {:index 0, :time 1, :type :invoke, :process 0, :f :cas, :value [0 [nil 1]]}
      {:index 1, :time 2, :type :invoke, :process 3, :f :read, :value [0 nil]}
      {:index 2, :time 3, :type :info, :process :nemesis, :f :start-partition, :value nil}
      {:index 3, :time 4, :type :ok, :process 0, :f :cas, :value [0 [nil 1]]}
      {:index 4, :time 5, :type :ok, :process 3, :f :read, :value [0 1]}
      {:index 5, :time 6, :type :invoke, :process 1, :f :write, :value [7 3]}
      {:index 6, :time 7, :type :info, :process 1, :f :write, :value [7 3], :error :timeout}
      {:index 7, :time 8, :type :invoke, :process 2, :f :read, :value [7 nil]}
      {:index 8, :time 9, :type :fail, :process 2, :f :read, :value nil, :error :unavailable}
      """;

  @Test
  void independentTuplesAreSplitPerKeyWhenEveryInvocationIsAPair() throws Exception {
    History raw = Histories.parse("i.edn", INDEPENDENT);
    assertThat(Independent.looksIndependent(raw)).isTrue();
    History h = Independent.apply(raw, Independent.Mode.AUTO);
    assertThat(h.ops().get(0).key()).isEqualTo(0L);
    assertThat(h.ops().get(0).value()).isEqualTo(Arrays.asList(null, 1L));
    assertThat(h.ops().get(1).value()).isNull();
    assertThat(h.ops().get(2).isClient()).isFalse();
    assertThat(h.ops().get(4).value()).isEqualTo(1L);
    assertThat(h.ops().get(6).key()).isEqualTo(7L);
    assertThat(h.ops().get(8).key()).isEqualTo(7L);
    assertThat(h.validate()).isEmpty();
    assertThat(h.clientOpsByKey().keySet()).containsExactly(0L, 7L);
    assertThat(Independent.apply(raw, Independent.Mode.NO)).isSameAs(raw);
    assertThat(Independent.apply(raw, Independent.Mode.YES).ops()).isEqualTo(h.ops());
  }

  @Test
  void plainHistoriesOfTheBuiltInModelsAreNotMistakenForIndependentOnes() throws Exception {
    // a plain cas-only history: every value a pair, but new is not a pair
    History cas = Histories.parse("c.edn", "[0 :invoke :cas [1 2]]\n[0 :ok :cas [1 2]]\n");
    // a txn of two micro-ops: a pair whose first element is a collection
    History txn = Histories.parse("t.edn", "[0 :invoke :txn [[:read :x nil] [:write :y 1]]]\n");
    // a read's invocation value is nil
    History reg = Histories.parse("r.edn", MAPS);
    History keyed =
        Histories.parse("k.edn", "{:process 0, :type :invoke, :f :write, :key :a, :value [1 2]}\n");
    for (History h : List.of(cas, txn, reg, keyed)) {
      assertThat(Independent.looksIndependent(h)).as(h.source()).isFalse();
      assertThat(Independent.apply(h, Independent.Mode.AUTO)).as(h.source()).isSameAs(h);
    }
    assertThat(Independent.looksIndependent(Histories.parse("e.edn", "[]"))).isFalse();
  }

  @Test
  void forcedSplittingOfAPlainHistoryAndAMismatchedCompletionAreBadInputWithTheirLines()
      throws Exception {
    assertThatThrownBy(
            () -> Independent.apply(Histories.parse("r.edn", MAPS), Independent.Mode.YES))
        .isInstanceOf(HistoryParseException.class)
        .hasMessageStartingWith("r.edn:1: expected an independent value [k v]");
    History wrongKey = Histories.parse("w.edn", "[0 :invoke :write [1 5]]\n[0 :ok :write [2 5]]\n");
    assertThatThrownBy(() -> Independent.apply(wrongKey, Independent.Mode.AUTO))
        .isInstanceOf(HistoryParseException.class)
        .hasMessageStartingWith("w.edn:2: expected the value [1 v] (the key of its invocation)");
  }
}
