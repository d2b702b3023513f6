package io.partkit.verification.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HtmlTest {

  @Test
  void escapesTheFiveCharactersThatEndTextOrAQuotedAttribute() {
    assertThat(Html.escape("<a href=\"x\" title='y'>&</a>"))
        .isEqualTo("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  }

  @Test
  void keepsEverythingElseIncludingNonAscii() {
    assertThat(Html.escape("cas 0→1 ≠ read; tab\there")).isEqualTo("cas 0→1 ≠ read; tab\there");
    assertThat(Html.escape("")).isEmpty();
  }

  @Test
  void escapesAnAmpersandOnceSoReferencesInTheInputStayVisible() {
    assertThat(Html.escape("&amp;")).isEqualTo("&amp;amp;");
  }
}
