package io.partkit.harness.system;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The {@code --option KEY=VALUE} settings a system knows, each with its default and what it
 * accepts, so that a run checks every given option before anything starts: an unknown key
 * (a typo such as {@code replica=3} ran with one copy) or a bad value is refused naming the
 * option, the value and what is expected, with the known options listed.
 */
public final class SystemOptions {

  /** What is wrong with a value for a run on {@code nodes} data nodes, or null if it is fine. */
  @FunctionalInterface
  public interface Check {
    String problem(String value, int nodes);
  }

  /** One option: its name, default (null: none), what it accepts, in words, and its check. */
  public record Spec(String name, String defaultValue, String accepts, Check check) {}

  private final String system;
  private final Map<String, Spec> specs = new LinkedHashMap<>();

  private SystemOptions(String system, List<Spec> specs) {
    this.system = system;
    specs.forEach(s -> this.specs.put(s.name(), s));
  }

  /** The options of {@code system}. */
  public static SystemOptions of(String system, Spec... specs) {
    return new SystemOptions(system, List.of(specs));
  }

  /** An option taking an integer in {@code [min, max]}. */
  public static Spec integer(String name, int defaultValue, int min, int max) {
    return new Spec(name, Integer.toString(defaultValue),
        "an integer " + (max == Integer.MAX_VALUE ? ">= " + min : "from " + min + " to " + max),
        (value, nodes) -> {
          try {
            int n = Integer.parseInt(value.trim());
            return n < min || n > max ? "out of range" : null;
          } catch (NumberFormatException e) {
            return "not an integer";
          }
        });
  }

  /** An option taking one of {@code values}; the first is the default unless given as null. */
  public static Spec oneOf(String name, String defaultValue, String... values) {
    List<String> allowed = List.of(values);
    return new Spec(name, defaultValue, "one of " + String.join(", ", allowed),
        (value, nodes) -> allowed.contains(value) ? null : "not one of them");
  }

  /** An option taking {@code true} or {@code false}, read with {@link OptionValues#flag}. */
  public static Spec bool(String name, boolean defaultValue) {
    return oneOf(name, Boolean.toString(defaultValue), "true", "false");
  }

  /** An option taking any non-empty text (a path, a class name). */
  public static Spec text(String name, String defaultValue, String accepts) {
    return new Spec(name, defaultValue, accepts,
        (value, nodes) -> value.isBlank() ? "empty" : null);
  }

  /**
   * {@code heap-mb}: the maximum heap of each data node's JVM in MB, for systems that run their
   * nodes as JVMs ({@code -Xmx}); more data than the default holds needs more (bench --live's
   * preloads).
   */
  public static Spec heapMb(int defaultMb) {
    return integer("heap-mb", defaultMb, 32, 65_536);
  }

  /** The same option with one more check (for example against the number of nodes). */
  public static Spec also(Spec spec, Check more) {
    return new Spec(spec.name(), spec.defaultValue(), spec.accepts(), (value, nodes) -> {
      String first = spec.check().problem(value, nodes);
      return first != null ? first : more.problem(value, nodes);
    });
  }

  /**
   * Checks {@code given} for a run on {@code nodes} nodes.
   *
   * @return the checked options with the defaults of those not given, which the system reads
   *     ({@link SystemContext#options()}) instead of parsing the strings again
   * @throws IllegalArgumentException naming every unknown key and bad value, and listing the
   *     known options
   */
  public OptionValues check(Map<String, String> given, int nodes) {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> e : given.entrySet()) {
      Spec spec = specs.get(e.getKey());
      if (spec == null) {
        problems.add("unknown " + system + " option '" + e.getKey() + "'");
        continue;
      }
      String problem = spec.check().problem(e.getValue(), nodes);
      if (problem != null) {
        problems.add(system + " option " + spec.name() + "=" + e.getValue() + ": " + problem
            + " (expected " + spec.accepts() + ")");
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems) + ". " + describe());
    }
    return new OptionValues(this, given);
  }

  /** The system these options belong to, as messages name it. */
  public String system() {
    return system;
  }

  /** The option called {@code name}, if there is one. */
  public Optional<Spec> spec(String name) {
    return Optional.ofNullable(specs.get(name));
  }

  /** The known options, in order. */
  public List<Spec> specs() {
    return List.copyOf(specs.values());
  }

  /** The known options with their defaults, for messages and {@code --help}. */
  public String describe() {
    if (specs.isEmpty()) {
      return system + " takes no options";
    }
    return system + " options: " + specs.values().stream()
        .map(s -> s.name() + (s.defaultValue() == null ? "" : "=" + s.defaultValue())
            + " (" + s.accepts() + ")")
        .collect(Collectors.joining(", "));
  }
}
