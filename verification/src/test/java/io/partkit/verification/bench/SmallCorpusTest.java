package io.partkit.verification.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.model.Models;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The small corpus behind SmallCorpusTiming: every history gets the verdict it has by
 * construction; the invalid ones carry evidence whose time is reported apart from the verdict's.
 */
class SmallCorpusTest {

  @Test
  void everyVerdictIsTheOneByConstruction() {
    List<SmallCorpus.Entry> corpus = SmallCorpus.generate();
    assertThat(corpus).hasSize(120);
    assertThat(corpus).filteredOn(e -> e.expected() == Verdict.INVALID).hasSize(7);
    for (SmallCorpus.Entry e : corpus) {
      Analysis a = Linearizability.check(Models.casRegister(null), e.history());
      assertThat(a.verdict()).as(e.name()).isEqualTo(e.expected());
      assertThat(a.nanos()).as(e.name()).isEqualTo(a.verdictNanos() + a.evidenceNanos());
      if (e.expected() == Verdict.INVALID) {
        assertThat(a.evidenceNanos()).as(e.name()).isPositive();
        var evidence = a.failure().orElseThrow().evidence();
        assertThat(evidence.message()).as(e.name()).contains("99");
        assertThat(evidence.longestPrefixes()).as(e.name()).isNotEmpty();
      } else {
        assertThat(a.evidenceNanos()).as(e.name()).isZero();
      }
    }
  }

  @Test
  void aKeyedHistoryIsValidAndACorruptedOneInvalidOnTheCorruptedKey() {
    var h = CasHistories.keyed(3, 20, 50, 4, 0.01);
    assertThat(Linearizability.check(Models.casRegister(null), h).verdict())
        .isEqualTo(Verdict.VALID);
    var bad = CasHistories.corrupt(h, 4);
    Analysis a = Linearizability.check(Models.casRegister(null), bad);
    assertThat(a.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(a.failure().orElseThrow().evidence().op().value()).asString().contains("99");
  }
}
