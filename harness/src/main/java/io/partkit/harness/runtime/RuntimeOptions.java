package io.partkit.harness.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The options a runtime knows ({@link RuntimeProvider#options()}), each with its type, default and
 * what it accepts, so that a run checks every given option before anything starts: an unknown
 * name, a text that does not parse, a bad value or a missing required option is refused naming
 * the option and what is expected, with the known options listed, as {@link
 * io.partkit.harness.system.SystemOptions} does for systems.
 */
public final class RuntimeOptions {

  private final String runtime;
  private final Map<String, RuntimeOption<?>> options = new LinkedHashMap<>();

  private RuntimeOptions(String runtime, List<RuntimeOption<?>> options) {
    this.runtime = runtime;
    for (RuntimeOption<?> o : options) {
      if (this.options.putIfAbsent(o.name(), o) != null) {
        throw new IllegalArgumentException(runtime + " declares option " + o.name() + " twice");
      }
    }
  }

  /** The options of the runtime called {@code runtime}. */
  public static RuntimeOptions of(String runtime, RuntimeOption<?>... options) {
    return new RuntimeOptions(runtime, List.of(options));
  }

  /** The runtime these options belong to, as messages name it. */
  public String runtime() {
    return runtime;
  }

  /** The known options, in order. */
  public List<RuntimeOption<?>> options() {
    return List.copyOf(options.values());
  }

  /** The option called {@code name}, if there is one. */
  public Optional<RuntimeOption<?>> option(String name) {
    return Optional.ofNullable(options.get(name));
  }

  /**
   * Checks the options {@code spec} gives.
   *
   * @return the checked values with the defaults of those not given, typed
   * @throws IllegalArgumentException naming every unknown option, bad value and missing required
   *     one, and listing the known options
   */
  public RuntimeValues check(RuntimeSpec spec) {
    List<String> problems = new ArrayList<>();
    Map<String, Object> values = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : spec.given().entrySet()) {
      RuntimeOption<?> option = options.get(e.getKey());
      if (option == null) {
        problems.add("unknown " + runtime + " option '" + e.getKey() + "'");
        continue;
      }
      String problem = checkOne(option, e.getValue(), values);
      if (problem != null) {
        problems.add(runtime + " option " + option.name() + "="
            + RuntimeOption.format(e.getValue()) + ": " + problem + " (expected "
            + option.accepts() + ")");
      }
    }
    for (RuntimeOption<?> option : options.values()) {
      if (option.isRequired() && !spec.given().containsKey(option.name())) {
        problems.add(runtime + " option " + option.name() + " is required (" + option.accepts()
            + ")");
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems) + ". " + describe());
    }
    return new RuntimeValues(this, values);
  }

  /** Parses (a text) or type-checks (a typed value) {@code given}, checks it, and keeps it. */
  private static <T> String checkOne(RuntimeOption<T> option, Object given,
      Map<String, Object> values) {
    T value;
    if (given instanceof RuntimeSpec.Text text) {
      try {
        value = option.parse(text.text());
      } catch (IllegalArgumentException e) {
        return e.getMessage();
      }
    } else if (option.type().isInstance(given)) {
      value = option.type().cast(given);
    } else {
      return "a " + given.getClass().getSimpleName() + ", not a " + option.type().getSimpleName();
    }
    String problem = option.problem(value);
    if (problem == null) {
      values.put(option.name(), value);
    }
    return problem;
  }

  /** The known options with their defaults, for messages and {@code --help}. */
  public String describe() {
    if (options.isEmpty()) {
      return runtime + " takes no options";
    }
    return runtime + " options: " + options.values().stream()
        .map(o -> o.name() + (o.defaultValue() == null ? "" : "="
            + RuntimeOption.format(o.defaultValue())) + " (" + o.accepts()
            + (o.isRequired() ? ", required" : "") + ")")
        .collect(Collectors.joining(", "));
  }
}
