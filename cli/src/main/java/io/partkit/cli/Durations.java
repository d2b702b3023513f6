package io.partkit.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations like {@code 30s}, {@code 500ms}, {@code 2m}, {@code 1h}, {@code 0}. */
final class Durations {
  private Durations() {}

  private static final Pattern P = Pattern.compile("(\\d+)(ms|s|m|h)?");

  /** @throws IllegalArgumentException for anything else */
  static Duration parse(String text) {
    return parse("time limit", text);
  }

  /**
   * A duration given to the option {@code what}.
   *
   * @throws IllegalArgumentException naming the option, for anything else
   */
  static Duration parse(String what, String text) {
    Matcher m = P.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(what + " must look like 30s, 500ms, 2m or 1h: " + text);
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    switch (unit) {
      case "ms": return Duration.ofMillis(n);
      case "m": return Duration.ofMinutes(n);
      case "h": return Duration.ofHours(n);
      default: return Duration.ofSeconds(n);
    }
  }
}
