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
   * A time limit given to the option {@code what}: 0 is none, and so is a limit too long to
   * count in nanoseconds (about 292 years and beyond: {@code 999999999999999s} overflowed into
   * an ArithmeticException).
   *
   * @throws IllegalArgumentException naming the option, for anything that is not a duration
   */
  static Duration parseLimit(String what, String text) {
    Matcher m = P.matcher(text.trim());
    if (m.matches() && m.group(1).length() > 18) {
      return Duration.ZERO; // more digits than a long: no limit
    }
    Duration d = parse(what, text);
    try {
      d.toNanos();
      return d;
    } catch (ArithmeticException e) {
      return Duration.ZERO;
    }
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
    long n;
    try {
      n = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " is too long: " + text);
    }
    String unit = m.group(2) == null ? "s" : m.group(2);
    try {
      switch (unit) {
        case "ms": return Duration.ofMillis(n);
        case "m": return Duration.ofMinutes(n);
        case "h": return Duration.ofHours(n);
        default: return Duration.ofSeconds(n);
      }
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(what + " is too long: " + text);
    }
  }
}
