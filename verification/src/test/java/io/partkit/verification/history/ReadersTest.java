package io.partkit.verification.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReadersTest {

  @Test
  void readsEdnOneMapPerLine() throws Exception {
    History h =
        Histories.parse(
            "h.edn",
            """
            {:process 0, :type :invoke, :f :write, :value 3, :time 10}
            {:process :nemesis, :type :info, :f :start, :value nil}
            {:process 0, :type :ok, :f :write, :value 3, :time 20}
            """);
    assertThat(h.ops()).hasSize(3);
    assertThat(h.ops().get(0)).isEqualTo(new Op(0, 0L, OpType.INVOKE, "write", 3L, null, 10, 1));
    assertThat(h.ops().get(1).isClient()).isFalse();
    assertThat(h.ops().get(1).process()).isEqualTo("nemesis");
    assertThat(h.ops().get(2).line()).isEqualTo(3);
  }

  @Test
  void readsEdnVectorOfMapsWithRecordTagsAndTxnValues() throws Exception {
    History h =
        Histories.parse(
            "h.edn",
            """
            [{:process 0, :type :invoke, :f :txn, :value [[:read :x nil] [:write :y 2]]}
             #jepsen.history.Op{:process 0, :type :ok, :f :txn,
                                :value [[:read :x 1] [:write :y 2]], :index 7}]
            """);
    assertThat(h.ops()).hasSize(2);
    assertThat(h.ops().get(1).value())
        .isEqualTo(List.of(List.of("read", "x", 1L), List.of("write", "y", 2L)));
    assertThat(h.ops().get(1).index()).isEqualTo(7);
    assertThat(h.ops().get(1).line()).isEqualTo(2);
  }

  @Test
  void readsJepsenLogLinesWithTabsOrSpaces() throws Exception {
    History h =
        Histories.parse(
            "etcd.log",
            """
            INFO  jepsen.core - Relative time begins now
            INFO  jepsen.util - 2\t:invoke\t:cas\t[3 0]
            INFO  jepsen.util - 2   :info   :cas    :timed-out
            INFO  jepsen.util - :nemesis\t:info\t:start\tnil
            """);
    assertThat(h.ops()).hasSize(3);
    assertThat(h.ops().get(0).value()).isEqualTo(List.of(3L, 0L));
    assertThat(h.ops().get(1).type()).isEqualTo(OpType.INFO);
    assertThat(h.ops().get(1).line()).isEqualTo(3);
    assertThat(h.ops().get(2).isClient()).isFalse();
  }

  @Test
  void readsJsonLinesWithTheSameValuesAsEdn() throws Exception {
    History json =
        Histories.parse(
            "h.jsonl",
            """
            {"process": 0, "type": "invoke", "f": "put", "key": "k", "value": {"a": [1, 2.5, true]}}
            {"process": 0, "type": ":ok", "f": ":put", "key": "k", "value": {"a": [1, 2.5, true]}}
            """);
    History edn =
        Histories.parse(
            "h.edn",
            """
            {:process 0, :type :invoke, :f :put, :key "k", :value {"a" [1 2.5 true]}}
            {:process 0, :type :ok, :f :put, :key "k", :value {:a [1 2.5 true]}}
            """);
    assertThat(json.ops().get(1).value())
        .isEqualTo(edn.ops().get(1).value())
        .isEqualTo(Map.of("a", List.of(1L, 2.5, true)));
    assertThat(json.ops().get(1).type()).isEqualTo(OpType.OK);
    assertThat(json.ops().get(1).key()).isEqualTo("k");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{:process 0, :type :invoke, :f :read}\\n"
            + "{:process 0, :type :ok :f :read|2|expected valid EDN",
        "{:process 0, :type :invoke, :f :read}\\n[1 2]|2|expected an operation map",
        "{:process 0, :type :invoke, :f :read}\\n\\n{:type :ok, :f :read}|3|expected a :process",
        "{:process 0, :type :done, :f :read}|1|expected :type to be one of",
        "{:process 0, :type :ok}|1|expected :f",
        "[{:process 0, :type :invoke, :f :read}|1|expected ']'",
        "{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"}\\n"
            + "{\"process\": 0,|2|expected one JSON object per line",
        "{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"}\\n[1]|2|expected a JSON object",
        "INFO  jepsen.util - 0\\t:invoke\\t:cas\\t[1 2\\n|1|expected valid EDN",
        "INFO  jepsen.util - 0\\t:invoke\\t:cas\\t[1 2] 3|1|expected one EDN value",
        "hello world|1|unrecognized history format",
        "'  '|1|empty file",
      })
  void malformedInputNamesFileLineAndExpectation(String text, int line, String expected) {
    assertThatThrownBy(
            () -> Histories.parse("bad.txt", text.replace("\\n", "\n").replace("\\t", "\t")))
        .isInstanceOf(HistoryParseException.class)
        .hasMessageStartingWith("bad.txt:" + line + ": ")
        .hasMessageContaining(expected)
        .satisfies(e -> assertThat(((HistoryParseException) e).line()).isEqualTo(line));
  }

  @Test
  void validationReportsEveryProblemClearly() throws Exception {
    History h =
        Histories.parse(
            "v.edn",
            """
            {:process 0, :type :ok, :f :read, :value 1}
            {:process 1, :type :invoke, :f :read}
            {:process 1, :type :invoke, :f :write, :value 2}
            {:process 1, :type :ok, :f :read}
            {:process :nemesis, :type :ok, :f :kill}
            {:process 2, :type :invoke, :f :read}
            """);
    assertThat(h.validate())
        .containsExactly(
            "line 1: process 0 has :ok :read without an open invocation (expected an :invoke by the"
                + " same process first)",
            "line 3: process 1 invokes :write while its invocation of :read at line 2: is still"
                + " open (a process has one operation at a time)",
            "line 4: process 1 completes :read but its open invocation at line 3: is :write");
  }
}
