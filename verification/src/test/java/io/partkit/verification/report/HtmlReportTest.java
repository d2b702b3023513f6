package io.partkit.verification.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.history.Histories;
import io.partkit.verification.history.History;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import org.junit.jupiter.api.Test;

class HtmlReportTest {
  static final String TEXT =
      """
      {:process 0, :type :invoke, :f :write, :value 1}
      {:process :nemesis, :type :info, :f :start, :value nil}
      {:process 1, :type :invoke, :f :read, :value nil}
      {:process 0, :type :ok, :f :write, :value 1}
      {:process 1, :type :ok, :f :read, :value 1}
      {:process 2, :type :invoke, :f :write, :value 2}
      {:process 2, :type :info, :f :write, :value 2}
      """;

  @Test
  void validHistoryShowsTheLinearizationOrderPerProcessLane() throws Exception {
    History h = Histories.parse("h.edn", TEXT);
    Model<?> m = Models.register(0L);
    Analysis a = Linearizability.check(m, h);
    String html = HtmlReport.render(m, h, a);
    assertThat(html)
        .contains("<span class='valid'>valid</span>")
        .contains(">process 0<")
        .contains(">process 1<")
        .contains(">process 2<")
        .contains(">process :nemesis<")
        .contains("#1 :write 1")
        .contains("#2 :read 1")
        .contains("class='op info'")
        .contains("class='op nemesis'")
        .doesNotContain("class='op bad'")
        .doesNotContain("<script")
        .doesNotContain("http");
  }

  @Test
  void invalidHistoryHighlightsTheOperationThatCouldNotBeLinearized() throws Exception {
    History h =
        Histories.parse(
            "h.edn", TEXT.replace(":ok, :f :read, :value 1", ":ok, :f :read, :value 7"));
    Model<?> m = Models.register(0L);
    Analysis a = Linearizability.check(m, h);
    String html = HtmlReport.render(m, h, a);
    assertThat(html)
        .contains("<span class='invalid'>invalid</span>")
        .containsOnlyOnce("class='op bad'")
        .contains(":f :read, :value 7")
        .contains("because: read 7 but the register holds");
    assertThat(AnalysisText.render(m, h, a))
        .contains("cannot linearize: {:process 1, :type :ok, :f :read, :value 7");
  }

  @Test
  void theSvgAloneIsAWellFormedDocumentWithTheFailingOpAndTheNumberedOps() throws Exception {
    History h = Histories.parse("h.edn", TEXT);
    // the read (invocation 2, completion 4) failed; the write (0, 3) numbered first
    String svg = HtmlReport.svg(h, 4L, java.util.List.of(3L));
    var doc = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new java.io.ByteArrayInputStream(
            svg.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
    assertThat(doc.getDocumentElement().getAttribute("xmlns"))
        .isEqualTo("http://www.w3.org/2000/svg");
    assertThat(svg)
        .containsOnlyOnce("class='op bad'")
        .contains("#1 :write 1")
        .contains("<style>")
        .contains(">process :nemesis<");
    assertThat(HtmlReport.svg(h, null, java.util.List.of())).doesNotContain("class='op bad'");
  }
}
