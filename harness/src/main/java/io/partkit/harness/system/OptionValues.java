package io.partkit.harness.system;

import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A system's options after {@link SystemOptions#check}: every given value passed its option's
 * check, and an option not given has its declared default. A system reads them here, typed,
 * instead of parsing the raw {@code --option} strings again with its own copy of each default.
 *
 * <p>Asking for an option the system does not declare is a mistake in the system's code, not in
 * the run's input: it fails naming the option and listing the declared ones.
 */
public final class OptionValues {

  private final SystemOptions options;
  private final Map<String, String> given;

  OptionValues(SystemOptions options, Map<String, String> given) {
    this.options = options;
    this.given = Map.copyOf(given);
  }

  /** The options exactly as given on the command line (no defaults), for records of the run. */
  public Map<String, String> given() {
    return given;
  }

  /**
   * Every option the system declares with the value the run uses: given, or its default (an
   * option given no value and having no default is left out), sorted by name. What a stored run
   * records, so that it says which mode it ran in even when nothing was given.
   */
  public Map<String, String> effective() {
    Map<String, String> values = new TreeMap<>();
    for (SystemOptions.Spec spec : options.specs()) {
      String value = given.getOrDefault(spec.name(), spec.defaultValue());
      if (value != null) {
        values.put(spec.name(), value);
      }
    }
    return Collections.unmodifiableMap(values);
  }

  /** Whether {@code name} was given (rather than left at its default). */
  public boolean isGiven(String name) {
    spec(name);
    return given.containsKey(name);
  }

  /** The value of {@code name}, given or its default; empty when neither exists. */
  public Optional<String> optional(String name) {
    SystemOptions.Spec spec = spec(name);
    return Optional.ofNullable(given.getOrDefault(name, spec.defaultValue()));
  }

  /**
   * The value of {@code name}, given or its default, as given (not trimmed).
   *
   * @throws IllegalStateException when it was not given and has no default (use {@link
   *     #optional})
   */
  public String text(String name) {
    return optional(name).orElseThrow(() -> new IllegalStateException(options.system()
        + " option " + name + " was not given and has no default"));
  }

  /** The value of an integer option. */
  public int integer(String name) {
    return Integer.parseInt(text(name).trim());
  }

  /** The value of an integer option, as a long (for durations in milliseconds and the like). */
  public long longValue(String name) {
    return Long.parseLong(text(name).trim());
  }

  /**
   * The value of an option that is {@code true} or {@code false}.
   *
   * @throws IllegalStateException when its value is neither (the option does not take booleans)
   */
  public boolean flag(String name) {
    String value = text(name).trim();
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalStateException(options.system() + " option " + name + "="
          + value + " is not true or false");
    };
  }

  /**
   * The value of a {@link SystemOptions#oneOf} option as the constant of {@code type} with the same
   * name, upper case, dashes as underscores ({@code partkit-fixed} is {@code PARTKIT_FIXED}).
   *
   * @throws IllegalStateException when {@code type} has no such constant
   */
  public <E extends Enum<E>> E choice(String name, Class<E> type) {
    String value = text(name);
    String constant = value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(constant)) {
        return e;
      }
    }
    throw new IllegalStateException(options.system() + " option " + name + "=" + value
        + " has no constant in " + type.getSimpleName());
  }

  private SystemOptions.Spec spec(String name) {
    return options.spec(name).orElseThrow(() -> new IllegalArgumentException(
        options.system() + " has no option '" + name + "'. " + options.describe()));
  }

  @Override
  public String toString() {
    return options.system() + " " + given;
  }
}
