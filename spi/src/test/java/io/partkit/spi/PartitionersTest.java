package io.partkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        .hasMessageContaining(
            "unknown partitioning strategy 'gamma'; known strategies: [alpha, beta]")
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

  @Test
  void aMissingOwnStrategyNamesTheArtifactToAdd() {
    // This module's tests have none of partkit's strategies on the class path.
    assertThatThrownBy(() -> Partitioners.load().create("rendezvous"))
        .isInstanceOf(UnknownStrategyException.class)
        .hasMessageStartingWith("unknown partitioning strategy 'rendezvous': it is provided by "
            + "io.partkit:partkit-strategy-rendezvous, which is not on the class path or module "
            + "path (add it as a dependency); known strategies: [alpha, beta]");
    assertThat(UnknownStrategyException.providedBy("fixed")).contains("partkit-strategy-fixed");
    assertThat(UnknownStrategyException.providedBy("tokenring"))
        .contains("partkit-strategy-tokenring");
    assertThat(UnknownStrategyException.providedBy("gamma")).isEmpty();
  }

  @Test
  void anOwnStrategyWhoseProviderFailedPointsAtTheFailureNotAtTheDependency(@TempDir Path dir)
      throws IOException {
    // A services file naming the fixed provider, whose class this loader cannot find: the jar is
    // "there" but broken, so adding the dependency again would not help.
    Path listing = dir.resolve("services");
    Files.writeString(listing, "io.partkit.strategy.fixed.FixedPartitionerProvider\n");
    ClassLoader broken = new ClassLoader(null) {
      @Override
      public Enumeration<URL> getResources(String name) throws IOException {
        return name.equals("META-INF/services/" + PartitionerProvider.class.getName())
            ? Collections.enumeration(List.of(listing.toUri().toURL()))
            : Collections.emptyEnumeration();
      }
    };
    Partitioners loaded = Partitioners.load(broken);
    assertThat(loaded.loadFailures()).hasSize(1);
    assertThatThrownBy(() -> loaded.create("fixed"))
        .hasMessageStartingWith("unknown partitioning strategy 'fixed': it is provided by "
            + "io.partkit:partkit-strategy-fixed, whose provider failed to load (see below); "
            + "known strategies: (none: is a strategy jar on the classpath?); "
            + "providers that failed to load: [")
        .hasMessageContaining("io.partkit.strategy.fixed.FixedPartitionerProvider")
        .hasMessageNotContaining("add it as a dependency");
  }
}
