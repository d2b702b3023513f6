package io.partkit.harness.system;

import java.util.List;
import java.util.Objects;

/**
 * Where a system's data sits after a run, compared with where a placement rule says it must:
 * partkit's offline prediction, checked against the live cluster once it has recovered.
 *
 * @param rule the placement that was checked, in words (e.g. partkit's strategy and partition
 *     count)
 * @param checked how many stored keys (or, where a product reports owners per partition, how many
 *     partitions, which covers every key) were checked
 * @param misplaced one line per key or partition not where the rule says (where it is, where it
 *     should be), or why the check could not be made
 */
public record PlacementCheck(String rule, int checked, List<String> misplaced) {

  public PlacementCheck {
    Objects.requireNonNull(rule, "rule");
    misplaced = List.copyOf(misplaced);
  }

  /** True when every checked key sits where the rule says. */
  public boolean ok() {
    return misplaced.isEmpty();
  }
}
