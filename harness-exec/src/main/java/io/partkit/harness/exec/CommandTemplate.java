package io.partkit.harness.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A command line as given in an option: words split on blanks, a word in single or double quotes
 * kept whole (blanks included, no escapes inside), and placeholders such as {@code {port}}
 * replaced anywhere in a word. No shell runs it, so there is no globbing, no variables and no
 * redirection: a command that needs them names {@code sh -c '...'} itself.
 */
final class CommandTemplate {

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-z-]+)}");

  private final String text;
  private final List<String> words;

  private CommandTemplate(String text, List<String> words) {
    this.text = text;
    this.words = words;
  }

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException when it is empty, a quote is not closed, or it names a
   *     placeholder not in {@code known}
   */
  static CommandTemplate parse(String text, Set<String> known) {
    List<String> words = split(text);
    if (words.isEmpty()) {
      throw new IllegalArgumentException("empty command");
    }
    Set<String> unknown = new TreeSet<>();
    for (String w : words) {
      Matcher m = PLACEHOLDER.matcher(w);
      while (m.find()) {
        if (!known.contains(m.group(1))) {
          unknown.add("{" + m.group(1) + "}");
        }
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown placeholder " + String.join(", ", unknown)
          + " (known: " + String.join(", ", known.stream().map(k -> "{" + k + "}").toList())
          + ")");
    }
    return new CommandTemplate(text, List.copyOf(words));
  }

  /** True when some word names {@code {name}}. */
  boolean uses(String name) {
    String placeholder = "{" + name + "}";
    return words.stream().anyMatch(w -> w.contains(placeholder));
  }

  /** The command with every placeholder replaced by its value in {@code values}. */
  List<String> expand(Map<String, String> values) {
    List<String> out = new ArrayList<>(words.size());
    for (String w : words) {
      Matcher m = PLACEHOLDER.matcher(w);
      StringBuilder b = new StringBuilder();
      while (m.find()) {
        String value = values.get(m.group(1));
        if (value == null) {
          throw new IllegalStateException("no value for {" + m.group(1) + "} in " + text);
        }
        m.appendReplacement(b, Matcher.quoteReplacement(value));
      }
      m.appendTail(b);
      out.add(b.toString());
    }
    return out;
  }

  /** The command as it was given. */
  @Override
  public String toString() {
    return text;
  }

  private static List<String> split(String text) {
    List<String> words = new ArrayList<>();
    StringBuilder word = null;
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        if (word == null) {
          word = new StringBuilder();
        }
      } else if (Character.isWhitespace(c)) {
        if (word != null) {
          words.add(word.toString());
          word = null;
        }
      } else {
        if (word == null) {
          word = new StringBuilder();
        }
        word.append(c);
      }
    }
    if (quote != 0) {
      throw new IllegalArgumentException("the quote " + quote + " is not closed");
    }
    if (word != null) {
      words.add(word.toString());
    }
    return words;
  }
}
