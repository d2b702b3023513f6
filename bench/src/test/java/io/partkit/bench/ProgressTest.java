package io.partkit.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressTest {

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  private void run165Steps(Progress p) {
    for (int i = 1; i <= 165; i++) {
      p.step(i, 165, "step " + i);
      if (i == 50) {
        p.note("hazelcast: not measured");
      }
    }
    p.finished();
  }

  @Test
  void withoutATerminalItPrintsAPlainLinePerTenthAndEveryNote() {
    run165Steps(Progress.to(out, false));
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertThat(text).doesNotContain("\r");
    assertThat(text.lines()).hasSizeLessThanOrEqualTo(12).contains("hazelcast: not measured")
        .anySatisfy(l -> assertThat(l).startsWith("[100%,").endsWith("step 165"));
  }

  @Test
  void onATerminalItRedrawsOneLine() {
    run165Steps(Progress.to(out, true));
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertThat(text.chars().filter(c -> c == '\r').count()).isGreaterThanOrEqualTo(165);
    assertThat(text).contains("100% step 165");
  }
}
