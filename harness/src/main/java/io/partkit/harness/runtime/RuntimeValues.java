package io.partkit.harness.runtime;

import java.util.Map;
import java.util.Optional;

/**
 * A runtime's options after {@link RuntimeOptions#check}: every given value parsed once and
 * checked, and an option not given at its declared default. A runtime reads them here, typed,
 * with the same {@link RuntimeOption} constants it declared.
 *
 * <p>Asking for an option the runtime does not declare is a mistake in the runtime's code, not in
 * the run's input: it fails naming the option and listing the declared ones.
 */
public final class RuntimeValues {

  private final RuntimeOptions options;
  private final Map<String, Object> given;

  RuntimeValues(RuntimeOptions options, Map<String, Object> given) {
    this.options = options;
    this.given = Map.copyOf(given);
  }

  /** The value of {@code option}, given or its default; empty when neither exists. */
  public <T> Optional<T> optional(RuntimeOption<T> option) {
    declared(option);
    Object value = given.get(option.name());
    return value != null ? Optional.of(option.type().cast(value))
        : Optional.ofNullable(option.defaultValue());
  }

  /**
   * The value of {@code option}, given or its default.
   *
   * @throws IllegalStateException when it was not given and has no default (use {@link
   *     #optional})
   */
  public <T> T get(RuntimeOption<T> option) {
    return optional(option).orElseThrow(() -> new IllegalStateException(options.runtime()
        + " option " + option.name() + " was not given and has no default"));
  }

  /** Whether {@code option} was given (rather than left at its default). */
  public boolean isGiven(RuntimeOption<?> option) {
    declared(option);
    return given.containsKey(option.name());
  }

  private void declared(RuntimeOption<?> option) {
    if (options.option(option.name()).orElse(null) != option) {
      throw new IllegalArgumentException(options.runtime() + " has no option '" + option.name()
          + "'. " + options.describe());
    }
  }

  @Override
  public String toString() {
    return options.runtime() + " " + given;
  }
}
