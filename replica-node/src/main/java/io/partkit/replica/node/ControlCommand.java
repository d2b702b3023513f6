package io.partkit.replica.node;

import io.partkit.replica.Bytes;
import java.util.HexFormat;
import java.util.Optional;

/**
 * A command the control process (or the coordinator process) reads on its standard input, one a
 * line: {@code split P} splits partition {@code P} (in halves of its range; {@code split P at HEX}
 * at the key, or token's eight bytes, {@code HEX} for a table of key ranges or a token ring, see
 * {@link io.partkit.replica.Numbering#split}), {@code split-all} splits every partition of
 * the table as it is when the command is carried out; {@code leave N} has node {@code N} leave
 * gracefully (its copies move to the others), {@code join N} has it join again, {@code forget N}
 * has the control forget it, lost for good with its disk (its copies are re-created on the
 * others; a new, empty node may then join under its number). Blank lines are nothing.
 */
sealed interface ControlCommand {

  /** What {@link #parse} accepts, for an error line. */
  String USAGE = "'split <partition>', 'split <partition> at <hex key>', 'split-all',"
      + " 'leave <node>', 'join <node>' or 'forget <node>'";

  /** Split one partition, at {@code cut} (null: in halves of its range). */
  record Split(int partition, Bytes cut) implements ControlCommand {
    @Override
    public String refusal(String why) {
      return "REPLICA SPLIT REFUSED " + partition + ": " + why;
    }
  }

  /** Split every partition of the table. */
  record SplitAll() implements ControlCommand {
    @Override
    public String refusal(String why) {
      return "REPLICA SPLIT REFUSED ALL: " + why;
    }
  }

  /** Node {@code node} leaves: its copies move to the others, it takes no new ones. */
  record Leave(int node) implements ControlCommand {
    @Override
    public String refusal(String why) {
      return "REPLICA LEAVE REFUSED " + node + ": " + why;
    }
  }

  /** Node {@code node} joins again (or for the first time): it takes copies. */
  record Join(int node) implements ControlCommand {
    @Override
    public String refusal(String why) {
      return "REPLICA JOIN REFUSED " + node + ": " + why;
    }
  }

  /** Node {@code node} is lost for good, its disk with it: the control forgets it. */
  record Forget(int node) implements ControlCommand {
    @Override
    public String refusal(String why) {
      return "REPLICA FORGET REFUSED " + node + ": " + why;
    }
  }

  /** The line that answers this command when it is refused for {@code why}. */
  String refusal(String why);

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
      return Optional.of(new Split(number(words[1], "partition", line), null));
    }
    if (words.length == 4 && words[0].equals("split") && words[2].equals("at")) {
      try {
        return Optional.of(new Split(number(words[1], "partition", line),
            Bytes.of(HexFormat.of().parseHex(words[3]))));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("not a key in hex in '" + line.trim() + "': "
            + e.getMessage() + "; expected " + USAGE, e);
      }
    }
    if (words.length == 2 && words[0].equals("leave")) {
      return Optional.of(new Leave(number(words[1], "node", line)));
    }
    if (words.length == 2 && words[0].equals("join")) {
      return Optional.of(new Join(number(words[1], "node", line)));
    }
    if (words.length == 2 && words[0].equals("forget")) {
      return Optional.of(new Forget(number(words[1], "node", line)));
    }
    throw new IllegalArgumentException("unknown command '" + line.trim() + "': expected "
        + USAGE);
  }

  private static int number(String word, String what, String line) {
    try {
      int n = Integer.parseInt(word);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IllegalArgumentException("not a " + what + " number in '" + line.trim()
        + "': expected " + USAGE);
  }
}
