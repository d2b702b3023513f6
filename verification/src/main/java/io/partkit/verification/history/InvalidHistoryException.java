package io.partkit.verification.history;

import java.util.List;

/** A history that reads fine but is not well-formed (see {@link History#validate()}). */
public final class InvalidHistoryException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final transient List<String> problems;

  public InvalidHistoryException(String source, List<String> problems) {
    super(
        source
            + ": invalid history: "
            + String.join("; ", problems.subList(0, Math.min(5, problems.size())))
            + (problems.size() > 5 ? "; and " + (problems.size() - 5) + " more" : ""));
    this.problems = List.copyOf(problems);
  }

  /** Every problem found, one message each. */
  public List<String> problems() {
    return problems;
  }
}
