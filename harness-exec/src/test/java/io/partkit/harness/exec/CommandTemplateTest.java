package io.partkit.harness.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CommandTemplateTest {

  private static final Set<String> KNOWN = ExecProvider.NODE_PLACEHOLDERS;

  @Test
  void wordsSplitOnBlanksQuotesKeepBlanksAndPlaceholdersAreReplacedInsideWords() {
    CommandTemplate t = CommandTemplate.parse(
        "  ./node  --listen={host}:{port} --name '{id} of {nodes}' \"--data\" {data}/x ''", KNOWN);
    assertThat(t.uses("port")).isTrue();
    assertThat(t.uses("peers")).isFalse();
    assertThat(t.expand(Map.of("host", "10.0.0.2", "port", "7000", "id", "n1",
        "nodes", "a:1,b:2", "data", "/d/n1")))
        .containsExactly("./node", "--listen=10.0.0.2:7000", "--name", "n1 of a:1,b:2",
            "--data", "/d/n1/x", "");
  }

  @Test
  void aValueIsTakenLiterallyNotAsAPattern() {
    assertThat(CommandTemplate.parse("x {data}", KNOWN).expand(Map.of("data", "$1\\{id}")))
        .containsExactly("x", "$1\\{id}");
  }

  @Test
  void anUnknownPlaceholderAnUnclosedQuoteAndNothingAreRefused() {
    assertThatThrownBy(() -> CommandTemplate.parse("node --port {prot} {ids}", KNOWN))
        .hasMessageContaining("unknown placeholder {ids}, {prot}").hasMessageContaining("{port}");
    assertThatThrownBy(() -> CommandTemplate.parse("node --name 'n1", KNOWN))
        .hasMessageContaining("quote ' is not closed");
    assertThatThrownBy(() -> CommandTemplate.parse("   ", KNOWN))
        .hasMessageContaining("empty command");
  }
}
