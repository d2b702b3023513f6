package io.partkit.verification.history;

import java.util.Objects;

/**
 * A tagged EDN literal the checker has no meaning for ({@code #inst "..."}, {@code #uuid "..."},
 * {@code #my.app/thing [...]}), kept as its tag and plain value. Why not the types Clojure would
 * build (java.util.Date, UUID, records): Jepsen writes {@code #inst} into fields the checker never
 * reads ({@code :time} of some tools, error details), and refusing the whole file for them helps
 * nobody; kept as a value, two equal literals still compare equal if a model does look at them.
 *
 * @param tag the tag without {@code #}, e.g. {@code inst}
 * @param value the tagged value, normalised like any other value
 */
public record TaggedValue(String tag, Object value) {
  public TaggedValue {
    Objects.requireNonNull(tag, "tag");
  }

  @Override
  public String toString() {
    return "#" + tag + " " + Values.toEdn(value);
  }
}
