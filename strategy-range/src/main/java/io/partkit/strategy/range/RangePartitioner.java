package io.partkit.strategy.range;

import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;
import io.partkit.strategy.support.AbstractPartitioner;
import io.partkit.strategy.fixed.FixedPartitionerProvider;
import io.partkit.strategy.support.CommonOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The {@code range} strategy: key -> partition is {@link KeyRanges} (the keys' byte order, cut at
 * split keys); partition -> replicas is the {@code fixed} strategy's table over that many
 * partitions.
 *
 * <h2>Why the fixed strategy's table</h2>
 * Which keys a partition holds and which nodes hold a partition are independent questions. Once
 * the ranges are cut, "give P partitions to N weighted, zone-labelled nodes, moving as few as
 * possible from the previous table" is exactly what {@code fixed} answers (floor/ceil counts,
 * minimal moves, zone spread, fixpoint on an unchanged view), and it is persisted format there;
 * re-implementing it would be a second copy to keep in step. So {@link #compute} hands the
 * previous table's replica lists to {@code fixed} as a table over {@code HashSlots(P)} and takes
 * its rows back over the ranges. It is a declared dependency (this module {@code requires
 * io.partkit.strategy.fixed}, which exports its provider to this module only), so a missing
 * {@code fixed} is a build or resolution error, not a failure at the first {@code create}.
 *
 * <h2>What stays, what moves</h2>
 * A previous table of this strategy keeps its split keys: a join or leave moves whole ranges, as
 * few as {@code fixed} moves slots, and never re-cuts them (re-cutting would move data between
 * nodes that stayed). Split keys change only through {@link RangeSplits}, as metadata, with both
 * halves where the range was; the next {@code place} then balances the partition counts, which
 * after splits by size is balancing data. Counting partitions equally is the choice here: shares
 * of the key line say nothing about where real keys fall, measured sizes do, and splits by size
 * make partitions comparable.
 */
final class RangePartitioner extends AbstractPartitioner {

  static final String NAME = "range";
  static final int DEFAULT_PARTITIONS = 16;

  private final KeyRanges initial;
  private final boolean zoneAware;
  private final PartitionerProvider tables;

  private RangePartitioner(PartitionerConfig config, KeyRanges initial, int replicas,
      boolean zoneAware, PartitionerProvider tables) {
    super(NAME, config, replicas, null); // the scheme follows splits: none is fixed
    this.initial = initial;
    this.zoneAware = zoneAware;
    this.tables = tables;
  }

  /**
   * @throws io.partkit.spi.InvalidConfigurationException listing every bad or unknown option
   */
  static RangePartitioner create(PartitionerConfig config) {
    PartitionerConfig.Reader reader = CommonOptions.reader(NAME, config);
    int partitions = CommonOptions.partitions(reader, DEFAULT_PARTITIONS);
    Optional<String> points = reader.text("split-points");
    int replicas = CommonOptions.replicas(reader);
    boolean zoneAware = CommonOptions.zoneAware(reader);
    KeyRanges initial = KeyRanges.even(partitions);
    if (points.isPresent()) {
      reader.require(config.get("partitions").isEmpty(), "give either partitions or"
          + " split-points, not both: split-points decide the count (" + config.asMap() + ")");
      initial = splitPoints(points.get(), reader);
    }
    reader.validate();
    return new RangePartitioner(config, initial, replicas, zoneAware,
        new FixedPartitionerProvider());
  }

  /**
   * Parses {@code split-points}: comma-separated keys, each {@code 0x} and hex digits for raw
   * bytes, else its UTF-8 bytes; problems go to the reader, naming the option.
   */
  static KeyRanges splitPoints(String raw, PartitionerConfig.Reader reader) {
    List<byte[]> keys = new ArrayList<>();
    String[] parts = raw.split(",", -1);
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i].trim();
      if (part.isEmpty()) {
        reader.require(false, "split-points: key " + i + " of '" + raw + "' is empty");
        return KeyRanges.even(1);
      }
      if (part.startsWith("0x")) {
        try {
          keys.add(HexFormat.of().parseHex(part.substring(2)));
        } catch (IllegalArgumentException e) {
          reader.require(false, "split-points: key " + i + " '" + part
              + "' is not 0x and an even number of hex digits");
          return KeyRanges.even(1);
        }
      } else {
        keys.add(part.getBytes(StandardCharsets.UTF_8));
      }
    }
    try {
      return KeyRanges.of(keys);
    } catch (IllegalArgumentException e) {
      reader.require(false, "split-points: " + e.getMessage());
      return KeyRanges.even(1);
    }
  }

  /** The ranges of a first table. */
  KeyRanges initialRanges() {
    return initial;
  }

  /** A previous table of this strategy over key ranges: its split keys are kept. */
  @Override
  protected boolean buildsOn(PartitionAssignment previous) {
    return previous.strategy().equals(NAME) && previous.scheme() instanceof KeyRanges;
  }

  @Override
  protected PartitionAssignment compute(MembershipView view,
      Optional<PartitionAssignment> previous, int rf) {
    KeyRanges ranges = previous.map(p -> (KeyRanges) p.scheme()).orElse(initial);
    int count = ranges.partitionCount();
    Partitioner table = tables.create(PartitionerConfig.of(
        "partitions", count, "replicas", rf, "zone-aware", zoneAware));
    // the same rows over slots: fixed builds on a table of its own name and scheme
    Optional<PartitionAssignment> asSlots = previous.map(p -> PartitionAssignment.of(
        tables.name(), 0, p.membershipVersion(), HashSlots.of(count), p.replicaTable()));
    PartitionAssignment placed = table.place(view, asSlots, rf);
    return assignment(view, ranges, placed.replicaTable());
  }

  @Override
  public String toString() {
    return "RangePartitioner{initial=" + initial + ", replicas=" + replicationFactor()
        + ", zone-aware=" + zoneAware + "}";
  }
}
