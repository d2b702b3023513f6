package io.partkit.replica.node;

import java.util.Optional;

/**
 * A command the control process reads on its standard input, one a line: {@code split P} splits
 * partition {@code P}, {@code split-all} splits every partition of the table as it is when the
 * command is carried out. Blank lines are nothing.
 */
sealed interface ControlCommand {

  /** What {@link #parse} accepts, for an error line. */
  String USAGE = "'split <partition>' or 'split-all'";

  /** Split one partition. */
  record Split(int partition) implements ControlCommand {}

  /** Split every partition of the table. */
  record SplitAll() implements ControlCommand {}

  /**
   * The command on {@code line}; empty for a blank line.
   *
   * @throws IllegalArgumentException naming the line and what was expected
   */
  static Optional<ControlCommand> parse(String line) {
    String[] words = line.trim().split("\\s+");
    if (words.length == 1 && words[0].isEmpty()) {
      return Optional.empty();
    }
    if (words.length == 1 && words[0].equals("split-all")) {
      return Optional.of(new SplitAll());
    }
    if (words.length == 2 && words[0].equals("split")) {
      try {
        int p = Integer.parseInt(words[1]);
        if (p >= 0) {
          return Optional.of(new Split(p));
        }
      } catch (NumberFormatException e) {
        // named below
      }
      throw new IllegalArgumentException("not a partition number in '" + line.trim()
          + "': expected " + USAGE);
    }
    throw new IllegalArgumentException("unknown command '" + line.trim() + "': expected "
        + USAGE);
  }
}
