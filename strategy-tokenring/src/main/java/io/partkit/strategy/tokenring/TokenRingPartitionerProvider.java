package io.partkit.strategy.tokenring;

import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;
import io.partkit.spi.StrategyOption;
import io.partkit.strategy.support.CommonOptions;
import java.util.List;
import java.util.Set;

/**
 * Provides the {@code tokenring} strategy.
 *
 * <h2>Options</h2>
 * <table>
 *   <caption>tokenring options</caption>
 *   <tr><th>name</th><th>default</th><th>range</th><th>meaning</th></tr>
 *   <tr><td>{@code vnodes}</td><td>16</td><td>1..1024</td><td>tokens per unit of weight: a node
 *       of weight w gets {@code w * vnodes} tokens</td></tr>
 *   <tr><td>{@code tokens}</td><td>{@code allocator}</td><td>{@code allocator},
 *       {@code random}</td><td>how a node's tokens are chosen</td></tr>
 *   <tr><td>{@code seed}</td><td>0</td><td>any long</td><td>seed of the {@code random}
 *       chooser (not used by the allocator)</td></tr>
 *   <tr><td>{@code replicas}</td><td>1</td><td>1..7</td><td>replicas per range, primary
 *       included</td></tr>
 *   <tr><td>{@code zone-aware}</td><td>true</td><td>true, false</td><td>spread replicas over
 *       distinct zones, then racks, while there are unused ones</td></tr>
 * </table>
 *
 * <p>The allocator is the default for the reason Cassandra made it its default in 4.0 (with
 * {@code num_tokens: 16}): random tokens need hundreds of vnodes per node for a tolerable spread
 * (max/avg about 1 + 2.5/sqrt(vnodes)), and many vnodes make every range-based operation (repair,
 * streaming, replica computation) slower, while the allocator reaches max/avg below 1.10 with 16.
 * Choose {@code random} when tokens must be recomputable from the membership alone, with no
 * previous assignment to build on.
 */
public final class TokenRingPartitionerProvider implements PartitionerProvider {

  /** The strategy's registered name. */
  public static final String NAME = "tokenring";

  /** Public no-argument constructor for {@link java.util.ServiceLoader}; does no work. */
  public TokenRingPartitionerProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Cassandra-style token ring with virtual nodes and Cassandra-compatible Murmur3 tokens;"
        + " keys move only to a joining or off a leaving node";
  }

  @Override
  public List<StrategyOption> options() {
    return List.of(
        new StrategyOption("vnodes", "16", "tokens per unit of weight, 1.."
            + TokenRingPartitioner.MAX_VNODES + ": a node of weight w gets w * vnodes tokens"),
        new StrategyOption("tokens", "allocator",
            "how a node's tokens are chosen: allocator (even, builds on the previous ring) "
                + "or random (recomputable from the membership alone)"),
        new StrategyOption("seed", "0", "any long; seed of the random chooser (the allocator "
            + "does not use it)"),
        CommonOptions.replicasOption("range"),
        CommonOptions.zoneAwareOption());
  }

  /**
   * @throws io.partkit.spi.InvalidConfigurationException listing every bad or unknown option
   */
  @Override
  public Partitioner create(PartitionerConfig config) {
    PartitionerConfig.Reader reader = CommonOptions.reader(NAME, config);
    int vnodes = reader.intValue("vnodes", 16, 1, TokenRingPartitioner.MAX_VNODES);
    int replicas = CommonOptions.replicas(reader);
    String tokens = reader.choice("tokens", "allocator", Set.of("allocator", "random"));
    long seed = CommonOptions.seed(reader);
    boolean zoneAware = CommonOptions.zoneAware(reader);
    reader.validate();
    TokenChooser chooser = tokens.equals("random")
        ? new SeededRandomTokens(seed)
        : new GreedyTokenAllocator();
    return new TokenRingPartitioner(config, vnodes, replicas, zoneAware, chooser);
  }
}
