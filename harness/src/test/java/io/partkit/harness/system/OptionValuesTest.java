package io.partkit.harness.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link SystemOptions#check} returns the options a system reads, typed and with the declared
 * defaults, so that a system never repeats a default or a check.
 */
class OptionValuesTest {

  private enum Mode { FAST_PATH, SLOW }

  private static final SystemOptions OPTIONS = SystemOptions.of("demo",
      SystemOptions.integer("count", 16, 1, 100),
      SystemOptions.integer("timeout-ms", 5000, 50, Integer.MAX_VALUE),
      SystemOptions.bool("durable", true),
      SystemOptions.oneOf("mode", "fast-path", "fast-path", "slow"),
      SystemOptions.oneOf("fault", null, "drop", "delay"),
      SystemOptions.text("path", null, "a file"));

  @Test
  void optionsNotGivenHaveTheirDeclaredDefaults() {
    OptionValues values = OPTIONS.check(Map.of(), 3);

    assertThat(values.integer("count")).isEqualTo(16);
    assertThat(values.longValue("timeout-ms")).isEqualTo(5000L);
    assertThat(values.flag("durable")).isTrue();
    assertThat(values.choice("mode", Mode.class)).isEqualTo(Mode.FAST_PATH);
    assertThat(values.text("mode")).isEqualTo("fast-path");
    assertThat(values.optional("fault")).isEmpty();
    assertThat(values.isGiven("count")).isFalse();
    assertThat(values.given()).isEmpty();
    assertThatThrownBy(() -> values.text("path"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("demo option path was not given and has no default");
  }

  @Test
  void theEffectiveOptionsAreTheGivenOnesAndEveryDefaultSortedByName() {
    OptionValues values = OPTIONS.check(Map.of("mode", "slow"), 3);

    assertThat(values.effective()).containsExactly(Map.entry("count", "16"),
        Map.entry("durable", "true"), Map.entry("mode", "slow"),
        Map.entry("timeout-ms", "5000"));
  }

  @Test
  void givenOptionsOverrideTheDefaultsAndAreReadTyped() {
    Map<String, String> given = Map.of("count", " 7 ", "timeout-ms", "60000", "durable", "false",
        "mode", "slow", "fault", "drop", "path", "/tmp/x y");
    OptionValues values = OPTIONS.check(given, 3);

    assertThat(values.integer("count")).isEqualTo(7);
    assertThat(values.longValue("timeout-ms")).isEqualTo(60_000L);
    assertThat(values.flag("durable")).isFalse();
    assertThat(values.choice("mode", Mode.class)).isEqualTo(Mode.SLOW);
    assertThat(values.optional("fault")).contains("drop");
    assertThat(values.text("path")).isEqualTo("/tmp/x y");
    assertThat(values.isGiven("count")).isTrue();
    assertThat(values.given()).isEqualTo(given);
  }

  @Test
  void aValueOutOfRangeNamesTheOptionAndTheAllowedRange() {
    assertThatThrownBy(() -> OPTIONS.check(Map.of("count", "101"), 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "demo option count=101: out of range (expected an integer from 1 to 100)");
    assertThatThrownBy(() -> OPTIONS.check(Map.of("timeout-ms", "10"), 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "demo option timeout-ms=10: out of range (expected an integer >= 50)");
    assertThatThrownBy(() -> OPTIONS.check(Map.of("durable", "yes"), 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "demo option durable=yes: not one of them (expected one of true, false)");
  }

  @Test
  void anUnknownOptionIsRefusedListingTheKnownOnes() {
    assertThatThrownBy(() -> OPTIONS.check(Map.of("cont", "3"), 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown demo option 'cont'. demo options: count=16 (an integer"
            + " from 1 to 100), timeout-ms=5000 (an integer >= 50), durable=true (one of true,"
            + " false), mode=fast-path (one of fast-path, slow), fault (one of drop, delay),"
            + " path (a file)");
  }

  @Test
  void aCheckAgainstTheNodeCountUsesTheRunsNodes() {
    SystemOptions copies = SystemOptions.of("demo", SystemOptions.also(
        SystemOptions.integer("replicas", 1, 1, Integer.MAX_VALUE),
        (value, nodes) -> Integer.parseInt(value.trim()) > nodes ? "more than " + nodes : null));

    assertThat(copies.check(Map.of("replicas", "3"), 3).integer("replicas")).isEqualTo(3);
    assertThatThrownBy(() -> copies.check(Map.of("replicas", "4"), 3))
        .hasMessageStartingWith("demo option replicas=4: more than 3");
  }

  @Test
  void readingAnOptionTheSystemDoesNotDeclareIsAMistakeNamingTheDeclaredOnes() {
    OptionValues values = OPTIONS.check(Map.of(), 3);

    assertThatThrownBy(() -> values.integer("replicas"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("demo has no option 'replicas'. demo options: count=16");
    assertThatThrownBy(() -> values.flag("mode"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("demo option mode=fast-path is not true or false");
    assertThatThrownBy(() -> values.choice("durable", Mode.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("demo option durable=true has no constant in Mode");
  }
}
