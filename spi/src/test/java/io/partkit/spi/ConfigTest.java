package io.partkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConfigTest {

  @Test
  void readsTypedValuesWithDefaults() {
    PartitionerConfig config = PartitionerConfig.of("partitions", 271, "load-bound", "1.25",
        "zone-aware", "false", "tokens", "random");
    PartitionerConfig.Reader r = config.reader("strategy 'x'");
    assertThat(r.intValue("partitions", 1024, 1, 4096)).isEqualTo(271);
    assertThat(r.intValue("replicas", 1, 1, 7)).isEqualTo(1);
    assertThat(r.doubleValue("load-bound", 1.1, 1.0, 10)).isEqualTo(1.25);
    assertThat(r.booleanValue("zone-aware", true)).isFalse();
    assertThat(r.choice("tokens", "allocator", Set.of("random", "allocator"))).isEqualTo("random");
    r.validate();
  }

  @Test
  void reportsEveryProblemAtOnce() {
    PartitionerConfig config = PartitionerConfig.of(Map.of("partitions", "0", "replicas", "x",
        "load-bound", "0.5", "zone-aware", "maybe", "partitons", "12"));
    PartitionerConfig.Reader r = config.reader("strategy 'x'");
    r.intValue("partitions", 1024, 1, 4096);
    r.intValue("replicas", 1, 1, 7);
    r.doubleValue("load-bound", 1.1, 1.0, 10);
    r.booleanValue("zone-aware", true);
    assertThatThrownBy(r::validate)
        .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
          assertThat(e.problems()).containsExactly(
              "partitions must be in 1..4096: 0",
              "replicas must be an integer in 1..7: 'x'",
              "load-bound must be in 1.0..10.0: 0.5",
              "zone-aware must be true or false: 'maybe'",
              "unknown option 'partitons'; known options: [partitions, replicas, load-bound,"
                  + " zone-aware]");
          assertThat(e.getMessage()).startsWith(
              "invalid configuration for strategy 'x' (5 problems):");
        });
  }

  @Test
  void freeTextIsTrimmedAndCountsAsKnown() {
    PartitionerConfig.Reader r =
        PartitionerConfig.of("split-points", " m,t ").reader("strategy 'x'");
    assertThat(r.text("split-points")).hasValue("m,t");
    assertThat(r.text("absent")).isEmpty();
    r.validate(); // would throw if split-points were unknown
  }

  @Test
  void oddNameValueListsAreRejected() {
    assertThatThrownBy(() -> PartitionerConfig.of("partitions"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("odd count: 1");
  }
}
