package io.partkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Discovery against the providers listed in this module's test
 * {@code META-INF/services/io.partkit.spi.PartitionerProvider}: two that work, one whose
 * constructor throws, one whose class does not exist and one that claims a taken name.
 */
class PartitionersTest {

  @Test
  void findsWorkingProvidersByNameDespiteBrokenOnes() {
    Partitioners loaded = Partitioners.load();
    assertThat(loaded.names()).containsExactly("alpha", "beta");
    assertThat(loaded.create("alpha").name()).isEqualTo("alpha");
    assertThat(loaded.loadFailures()).hasSize(3);
    assertThat(String.join("\n", loaded.loadFailures()))
        .contains("constructor refuses")
        .contains("io.partkit.spi.NoSuchProvider")
        .contains("name 'alpha' is already taken by io.partkit.spi.TestProviders$Alpha");
  }

  @Test
  void unknownNamesFailListingTheKnownOnesAndTheFailures() {
    assertThatThrownBy(() -> Partitioners.load().create("gamma"))
        .isInstanceOfSatisfying(UnknownStrategyException.class, e -> {
          assertThat(e.requested()).isEqualTo("gamma");
          assertThat(e.known()).containsExactlyInAnyOrder("alpha", "beta");
        })
        .hasMessageContaining("unknown partitioning strategy 'gamma'; known strategies: [alpha, beta]")
        .hasMessageContaining("providers that failed to load");
  }

  @Test
  void anEmptyClassPathSaysSo() {
    ClassLoader empty = new ClassLoader(null) {};
    Partitioners none = Partitioners.load(empty);
    assertThat(none.names()).isEmpty();
    assertThatThrownBy(() -> none.create("fixed"))
        .hasMessageContaining("(none: is a strategy jar on the classpath?)");
    assertThat(none.provider("fixed")).isEqualTo(Optional.empty());
    assertThat(List.copyOf(none.loadFailures())).isEmpty();
  }
}
