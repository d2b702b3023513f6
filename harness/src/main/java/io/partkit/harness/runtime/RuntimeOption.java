package io.partkit.harness.runtime;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One option of a runtime, typed: its name, the type of its value, its default (null: none),
 * whether a run must give it, what it accepts (in words, for messages and listings) and its
 * check. A value arrives either typed ({@link RuntimeSpec#with}, from a typed command-line flag
 * or a test) or as the text of {@code --runtime-option NAME=TEXT}, which {@link #parse} turns
 * into the same type once; the runtime reads the typed value ({@link RuntimeValues#get}).
 *
 * @param <T> the type of the value
 */
public final class RuntimeOption<T> {

  private final String name;
  private final Class<T> type;
  private final T defaultValue;
  private final boolean required;
  private final String accepts;
  private final Function<String, T> parser;
  private final Function<T, String> check;

  private RuntimeOption(String name, Class<T> type, T defaultValue, boolean required,
      String accepts, Function<String, T> parser, Function<T, String> check) {
    if (!name.matches("[a-z][a-z0-9-]*")) {
      throw new IllegalArgumentException("runtime option names are lower case letters, digits "
          + "and '-': '" + name + "'");
    }
    this.name = name;
    this.type = Objects.requireNonNull(type, "type");
    this.defaultValue = defaultValue;
    this.required = required;
    this.accepts = Objects.requireNonNull(accepts, "accepts");
    this.parser = Objects.requireNonNull(parser, "parser");
    this.check = Objects.requireNonNull(check, "check");
  }

  /** Any non-blank text; {@code defaultValue} may be null (none). */
  public static RuntimeOption<String> text(String name, String defaultValue, String accepts) {
    return new RuntimeOption<>(name, String.class, defaultValue, false, accepts, s -> s,
        v -> v.isBlank() ? "empty" : null);
  }

  /** An integer in {@code [min, max]}. */
  public static RuntimeOption<Integer> integer(String name, int defaultValue, int min, int max) {
    return new RuntimeOption<>(name, Integer.class, defaultValue, false,
        "an integer from " + min + " to " + max, s -> {
          try {
            return Integer.parseInt(s.trim());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer");
          }
        }, v -> v < min || v > max ? "out of range" : null);
  }

  /** {@code true} or {@code false}. */
  public static RuntimeOption<Boolean> flag(String name, boolean defaultValue) {
    return new RuntimeOption<>(name, Boolean.class, defaultValue, false, "true or false", s -> {
      switch (s.trim()) {
        case "true":
          return true;
        case "false":
          return false;
        default:
          throw new IllegalArgumentException("not true or false");
      }
    }, v -> null);
  }

  /** A file; {@code defaultValue} may be null (none). */
  public static RuntimeOption<Path> path(String name, Path defaultValue, String accepts) {
    return new RuntimeOption<>(name, Path.class, defaultValue, false, accepts, s -> {
      if (s.isBlank()) {
        throw new IllegalArgumentException("empty");
      }
      return Path.of(s.trim());
    }, v -> null);
  }

  /** A non-empty list; as text, its items separated by commas. It has no default. */
  @SuppressWarnings("unchecked")
  public static RuntimeOption<List<String>> list(String name, String accepts) {
    Class<List<String>> type = (Class<List<String>>) (Class<?>) List.class;
    return new RuntimeOption<>(name, type, null, false, accepts, s -> {
      List<String> items = new ArrayList<>();
      for (String item : s.split(",", -1)) {
        items.add(item.strip());
      }
      return List.copyOf(items);
    }, v -> v.isEmpty() ? "empty" : null);
  }

  /** The same option, which a run must give (it has no default). */
  public RuntimeOption<T> required() {
    return new RuntimeOption<>(name, type, null, true, accepts, parser, check);
  }

  /** The same option with one more check, run after its own: a problem, or null. */
  public RuntimeOption<T> also(Function<T, String> more) {
    Function<T, String> first = check;
    return new RuntimeOption<>(name, type, defaultValue, required, accepts, parser, v -> {
      String problem = first.apply(v);
      return problem != null ? problem : more.apply(v);
    });
  }

  public String name() {
    return name;
  }

  public Class<T> type() {
    return type;
  }

  /** The default, or null when it has none. */
  public T defaultValue() {
    return defaultValue;
  }

  /** Whether a run must give it. */
  public boolean isRequired() {
    return required;
  }

  /** What it accepts, in words. */
  public String accepts() {
    return accepts;
  }

  /**
   * The value of {@code text}, as given on the command line.
   *
   * @throws IllegalArgumentException saying what is wrong with it (the caller names the option)
   */
  public T parse(String text) {
    return parser.apply(text);
  }

  /** What is wrong with {@code value}, or null when it is fine. */
  public String problem(T value) {
    return check.apply(value);
  }

  /** {@code value} the way {@link #parse} reads it, for listings and records of a run. */
  public static String format(Object value) {
    if (value instanceof List<?> items) {
      return String.join(",", items.stream().map(String::valueOf).toList());
    }
    return String.valueOf(value);
  }

  @Override
  public String toString() {
    return name;
  }
}
