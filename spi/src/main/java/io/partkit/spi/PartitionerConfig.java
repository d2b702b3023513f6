package io.partkit.spi;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Options for a strategy, as strings by name (so they come equally from code, a command line, a
 * properties file or a coordinator's stored settings). Immutable.
 *
 * <p>Common option names, used the same way by every strategy that supports them:
 * {@code partitions}, {@code replicas}, {@code vnodes}, {@code seed}, {@code load-bound},
 * {@code zone-aware}. Strategies read them through {@link #reader(String)}, which collects every
 * problem before failing.
 */
public final class PartitionerConfig {

  private static final PartitionerConfig EMPTY = new PartitionerConfig(new TreeMap<>());

  private final Map<String, String> values;

  private PartitionerConfig(TreeMap<String, String> values) {
    this.values = Collections.unmodifiableMap(values);
  }

  /** No options: every strategy's defaults. */
  public static PartitionerConfig empty() {
    return EMPTY;
  }

  /** Options from a map; values are converted with {@link String#valueOf}. */
  public static PartitionerConfig of(Map<String, ?> options) {
    TreeMap<String, String> copy = new TreeMap<>();
    options.forEach((k, v) -> copy.put(requireNonNull(k, "option name"),
        String.valueOf(requireNonNull(v, () -> "value of option " + k))));
    return new PartitionerConfig(copy);
  }

  /** Options from alternating names and values: {@code of("partitions", 271, "replicas", 2)}. */
  public static PartitionerConfig of(Object... namesAndValues) {
    if (namesAndValues.length % 2 != 0) {
      throw new IllegalArgumentException(
          "expected name/value pairs, got an odd count: " + namesAndValues.length);
    }
    TreeMap<String, String> copy = new TreeMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      copy.put(String.valueOf(namesAndValues[i]), String.valueOf(namesAndValues[i + 1]));
    }
    return new PartitionerConfig(copy);
  }

  /** This configuration with one option set. */
  public PartitionerConfig with(String name, Object value) {
    TreeMap<String, String> copy = new TreeMap<>(values);
    copy.put(requireNonNull(name, "name"), String.valueOf(requireNonNull(value, "value")));
    return new PartitionerConfig(copy);
  }

  /** The raw value of an option. */
  public Optional<String> get(String name) {
    return Optional.ofNullable(values.get(name));
  }

  /** All options, sorted by name, unmodifiable. */
  public Map<String, String> asMap() {
    return values;
  }

  /** A reader that validates options for {@code subject} and reports all problems at once. */
  public Reader reader(String subject) {
    return new Reader(subject);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartitionerConfig other && values.equals(other.values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  @Override
  public String toString() {
    return values.toString();
  }

  /**
   * Reads typed options with defaults and bounds, collecting problems; {@link #validate()} then
   * throws one {@link InvalidConfigurationException} naming them all, unknown option names
   * included.
   */
  public final class Reader {
    private final String subject;
    private final Set<String> known = new LinkedHashSet<>();
    private final List<String> problems = new ArrayList<>();

    private Reader(String subject) {
      this.subject = subject;
    }

    /** An integer option in {@code min..max}. */
    public int intValue(String name, int defaultValue, int min, int max) {
      return (int) longValue(name, defaultValue, min, max);
    }

    /** A long option in {@code min..max}. */
    public long longValue(String name, long defaultValue, long min, long max) {
      known.add(name);
      String raw = values.get(name);
      if (raw == null) {
        return defaultValue;
      }
      try {
        long v = Long.parseLong(raw.trim());
        if (v < min || v > max) {
          problems.add(name + " must be in " + min + ".." + max + ": " + raw);
          return defaultValue;
        }
        return v;
      } catch (NumberFormatException e) {
        problems.add(name + " must be an integer in " + min + ".." + max + ": '" + raw + "'");
        return defaultValue;
      }
    }

    /** A decimal option in {@code min..max}. */
    public double doubleValue(String name, double defaultValue, double min, double max) {
      known.add(name);
      String raw = values.get(name);
      if (raw == null) {
        return defaultValue;
      }
      try {
        double v = Double.parseDouble(raw.trim());
        if (!(v >= min && v <= max)) {
          problems.add(name + " must be in " + min + ".." + max + ": " + raw);
          return defaultValue;
        }
        return v;
      } catch (NumberFormatException e) {
        problems.add(name + " must be a number in " + min + ".." + max + ": '" + raw + "'");
        return defaultValue;
      }
    }

    /** A boolean option ({@code true} or {@code false}). */
    public boolean booleanValue(String name, boolean defaultValue) {
      known.add(name);
      String raw = values.get(name);
      if (raw == null) {
        return defaultValue;
      }
      return switch (raw.trim().toLowerCase(java.util.Locale.ROOT)) {
        case "true" -> true;
        case "false" -> false;
        default -> {
          problems.add(name + " must be true or false: '" + raw + "'");
          yield defaultValue;
        }
      };
    }

    /** An option whose value is one of {@code allowed}. */
    public String choice(String name, String defaultValue, Set<String> allowed) {
      known.add(name);
      String raw = values.get(name);
      if (raw == null) {
        return defaultValue;
      }
      if (!allowed.contains(raw.trim())) {
        problems.add(name + " must be one of " + allowed + ": '" + raw + "'");
        return defaultValue;
      }
      return raw.trim();
    }

    /**
     * A free-text option as given, trimmed; empty when absent. The caller parses it and reports
     * a bad value with {@link #require}.
     */
    public Optional<String> text(String name) {
      known.add(name);
      String raw = values.get(name);
      return raw == null ? Optional.empty() : Optional.of(raw.trim());
    }

    /** Records a problem found by a check across options. */
    public void require(boolean condition, String problem) {
      if (!condition) {
        problems.add(problem);
      }
    }

    /**
     * @throws InvalidConfigurationException if any option was bad or unknown
     */
    public void validate() {
      List<String> all = new ArrayList<>(problems);
      for (String name : values.keySet()) {
        if (!known.contains(name)) {
          all.add("unknown option '" + name + "'; known options: " + known);
        }
      }
      if (!all.isEmpty()) {
        throw new InvalidConfigurationException(subject, all);
      }
    }
  }
}
