package io.partkit.spi;

import java.util.List;
import java.util.Set;

/** No provider has the requested strategy name; the message lists the names that are known. */
public final class UnknownStrategyException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String requested;
  private final Set<String> known;

  UnknownStrategyException(String requested, Set<String> known, List<String> loadFailures) {
    super("unknown partitioning strategy '" + requested + "'; known strategies: "
        + (known.isEmpty() ? "(none: is a strategy jar on the classpath?)" : known)
        + (loadFailures.isEmpty() ? "" : "; providers that failed to load: " + loadFailures));
    this.requested = requested;
    this.known = Set.copyOf(known);
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
