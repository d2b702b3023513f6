package io.partkit.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * No provider has the requested strategy name; the message lists the names that are known and,
 * when the name is one of partkit's own strategies, the artifact that provides it.
 */
public final class UnknownStrategyException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  /**
   * partkit's own strategies by name, with the artifact and the provider's package. The usual
   * cause of an unknown {@code fixed} is a missing jar, and the fix (a dependency) is easier to
   * act on when the message names it than when it only lists what is there.
   */
  private static final Map<String, String> OWN_ARTIFACTS = Map.of(
      "fixed", "partkit-strategy-fixed",
      "tokenring", "partkit-strategy-tokenring",
      "rendezvous", "partkit-strategy-rendezvous");

  private final String requested;
  private final Set<String> known;

  UnknownStrategyException(String requested, Set<String> known, List<String> loadFailures) {
    super(message(requested, known, loadFailures));
    this.requested = requested;
    this.known = Set.copyOf(known);
  }

  private static String message(String requested, Set<String> known, List<String> loadFailures) {
    StringBuilder sb = new StringBuilder("unknown partitioning strategy '").append(requested)
        .append('\'');
    providedBy(requested).ifPresent(artifact -> {
      sb.append(": it is provided by io.partkit:").append(artifact);
      // A failure that names the strategy's own package means the jar is there but broken; then
      // adding the dependency is not the fix, the listed failure is.
      String providerPackage = "io.partkit.strategy." + requested + ".";
      if (loadFailures.stream().anyMatch(f -> f.contains(providerPackage))) {
        sb.append(", whose provider failed to load (see below)");
      } else {
        sb.append(", which is not on the class path or module path (add it as a dependency)");
      }
    });
    sb.append("; known strategies: ")
        .append(known.isEmpty() ? "(none: is a strategy jar on the classpath?)" : known);
    if (!loadFailures.isEmpty()) {
      sb.append("; providers that failed to load: ").append(loadFailures);
    }
    return sb.toString();
  }

  /**
   * The artifact id (group {@code io.partkit}) of the partkit module that provides the named
   * strategy, or empty when the name is not one of partkit's own strategies.
   */
  static Optional<String> providedBy(String strategy) {
    return Optional.ofNullable(OWN_ARTIFACTS.get(strategy));
  }

  /** The name that was asked for. */
  public String requested() {
    return requested;
  }

  /** The names that were found. */
  public Set<String> known() {
    return known;
  }
}
