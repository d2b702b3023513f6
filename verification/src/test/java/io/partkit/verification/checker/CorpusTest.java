package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.Histories;
import io.partkit.verification.history.History;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every history of the Porcupine corpus gets the verdict EXPECTED.tsv gives. */
class CorpusTest {

  static List<Corpus.Row> rows() throws IOException {
    return Corpus.rows();
  }

  static Model<?> modelFor(String path) {
    return modelFor(path, NilReads.KNOSSOS);
  }

  static Model<?> modelFor(String path, NilReads nilReads) {
    return path.contains("/kv/") ? Models.kv("") : Models.casRegister(null, nilReads);
  }

  @Test
  void corpusIsComplete() throws IOException {
    List<Corpus.Row> rows = rows();
    assertThat(rows).hasSize(108);
    assertThat(rows).filteredOn(r -> r.path().contains("etcd_")).hasSize(102);
  }

  /**
   * Both readings of an :ok read of nil (Knossos' wildcard and strict) give the expected verdict.
   */
  static Stream<Arguments> rowsByReading() throws IOException {
    return rows().stream().flatMap(r -> Stream.of(NilReads.values()).map(n -> Arguments.of(r, n)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("rowsByReading")
  void verdictMatchesExpected(Corpus.Row row, NilReads nilReads) throws Exception {
    History h = Histories.read(Corpus.dir().resolve(row.path()));
    Analysis a = Linearizability.check(modelFor(row.path(), nilReads), h);
    Verdict expected = row.expected().equals("linearizable") ? Verdict.VALID : Verdict.INVALID;
    assertThat(a.verdict()).as("%s: %s", row.path(), a.cause()).isEqualTo(expected);
    if (expected == Verdict.INVALID) {
      KeyResult failure = a.failure().orElseThrow();
      assertThat(failure.evidence().op()).isNotNull();
      assertThat(failure.evidence().longestPrefixes()).isNotEmpty();
    } else {
      assertThat(a.keys()).allSatisfy(k -> assertThat(k.linearization()).isNotEmpty());
    }
  }
}
