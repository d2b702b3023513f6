package io.partkit.harness.system;

import java.util.List;
import java.util.Objects;

/**
 * Where a system's data sits after a run, compared with where a placement rule says it must:
 * partkit's offline prediction, checked against the live cluster once it has recovered.
 *
 * @param rule the placement that was checked, in words (e.g. partkit's strategy and partition
 *     count)
 * @param keys how many stored keys were checked
 * @param misplaced one line per key not where the rule says (key, where it is, where it should be)
 */
public record PlacementCheck(String rule, int keys, List<String> misplaced) {

  public PlacementCheck {
    Objects.requireNonNull(rule, "rule");
    misplaced = List.copyOf(misplaced);
  }

  /** True when every checked key sits where the rule says. */
  public boolean ok() {
    return misplaced.isEmpty();
  }
}
