package io.partkit.spi;

import static java.util.Objects.requireNonNull;

/**
 * One option a strategy reads from its {@link PartitionerConfig}, as a provider describes it for
 * people (for example {@code partkit strategies}): its name, the value taken when it is absent,
 * and what it means, allowed values included. A description only: the provider's
 * {@link PartitionerProvider#create} remains what validates options.
 *
 * @param name the option's name in a {@link PartitionerConfig}
 * @param defaultValue the value used when the option is absent, as it would be written; text
 *     such as {@code "absent: plain rendezvous"} where absence means something else
 * @param meaning what the option changes and its allowed values, one line
 */
public record StrategyOption(String name, String defaultValue, String meaning) {

  public StrategyOption {
    requireNonNull(name, "name");
    requireNonNull(defaultValue, "defaultValue");
    requireNonNull(meaning, "meaning");
  }
}
