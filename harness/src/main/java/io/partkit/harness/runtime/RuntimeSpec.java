package io.partkit.harness.runtime;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The runtime a run asks for: a {@link RuntimeProvider}'s name and the options given for it, each
 * either typed ({@link #with}) or as the text of {@code --runtime-option NAME=TEXT} ({@link
 * #withText}). Immutable. Nothing is checked here: the provider's {@link RuntimeOptions#check}
 * does that before anything starts, parsing each text once, and hands the runtime typed values.
 */
public final class RuntimeSpec {

  /** The text of {@code --runtime-option}, parsed by the option it names when checked. */
  record Text(String text) {
    Text {
      Objects.requireNonNull(text, "text");
    }

    @Override
    public String toString() {
      return text;
    }
  }

  private final String name;
  private final Map<String, Object> given;

  private RuntimeSpec(String name, Map<String, Object> given) {
    this.name = Objects.requireNonNull(name, "name");
    this.given = Collections.unmodifiableMap(given);
  }

  /** The runtime called {@code name} with its defaults. */
  public static RuntimeSpec named(String name) {
    return new RuntimeSpec(name, new LinkedHashMap<>());
  }

  /** {@code processes}, the default runtime. */
  public static RuntimeSpec processes() {
    return named("processes");
  }

  /**
   * This spec with {@code option} set to {@code value}.
   *
   * @throws IllegalArgumentException when the option is already given
   */
  public <T> RuntimeSpec with(RuntimeOption<T> option, T value) {
    return put(option.name(), Objects.requireNonNull(value, option.name()));
  }

  /**
   * This spec with the option called {@code option} given as {@code text}, as on the command line.
   *
   * @throws IllegalArgumentException when the option is already given
   */
  public RuntimeSpec withText(String option, String text) {
    return put(option, new Text(text));
  }

  private RuntimeSpec put(String option, Object value) {
    if (given.containsKey(option)) {
      throw new IllegalArgumentException(name + " option " + option + " is given twice: "
          + RuntimeOption.format(given.get(option)) + " and " + RuntimeOption.format(value));
    }
    Map<String, Object> more = new LinkedHashMap<>(given);
    more.put(option, value);
    return new RuntimeSpec(name, more);
  }

  /** The provider's name: {@code processes}, {@code netns}, {@code containers}, {@code ssh}. */
  public String name() {
    return name;
  }

  /** The options given, in order: typed values, or texts still to be parsed. */
  Map<String, Object> given() {
    return given;
  }

  /** The options given, as text, in order (for records of the run). */
  public Map<String, String> givenText() {
    Map<String, String> texts = new LinkedHashMap<>();
    given.forEach((k, v) -> texts.put(k, RuntimeOption.format(v)));
    return Collections.unmodifiableMap(texts);
  }

  /** {@code processes}, or {@code ssh hosts=h1,h2 user=root} with the options given. */
  @Override
  public String toString() {
    return given.isEmpty() ? name : name + " " + givenText().entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RuntimeSpec other && name.equals(other.name)
        && givenText().equals(other.givenText());
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, givenText());
  }
}
