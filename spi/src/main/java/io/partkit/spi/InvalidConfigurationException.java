package io.partkit.spi;

import java.util.List;

/**
 * A configuration was rejected; {@link #problems()} lists every problem found, not just the first.
 */
public final class InvalidConfigurationException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  /**
   * @param subject what was being configured, e.g. {@code "strategy 'fixed'"}
   * @param problems one message per problem, each naming the option, the value and what is allowed
   */
  public InvalidConfigurationException(String subject, List<String> problems) {
    super("invalid configuration for " + subject + " (" + problems.size()
        + (problems.size() == 1 ? " problem" : " problems") + "):\n  - "
        + String.join("\n  - ", problems));
    this.problems = List.copyOf(problems);
  }

  /** One message per problem. */
  public List<String> problems() {
    return problems;
  }
}
