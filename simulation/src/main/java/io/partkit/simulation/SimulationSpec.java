package io.partkit.simulation;

import io.partkit.replica.Bytes;
import io.partkit.replica.Placement;
import io.partkit.replica.strategy.StrategyPlacement;
import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerProvider;
import io.partkit.spi.Partitioners;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import io.partkit.replica.mutants.Mutant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What one seed simulates: the cluster's shape, the workload, the faults' virtual time and an
 * optional planted bug.
 *
 * @param nodes nodes at the start (joins may add more)
 * @param replicas copies of each partition (primary included)
 * @param partitions partitions in the table
 * @param time virtual time during which clients run and faults strike; heal, recovery and final
 *     reads follow
 * @param concurrency client workers
 * @param opsPerKey operations on one key before its workers take a fresh key
 * @param threadsPerKey workers sharing one key at a time
 * @param mutant the planted bug, if any
 * @param strategy the partkit strategy (a {@link Partitioner}'s name) the control places copies
 *     by, {@value #CORE_PLACEMENT}: the control's own round robin and least loaded rule, or
 *     {@value #TARGETS_PLACEMENT}: targets a coordinator outside the control decides and hands it
 *     while it runs ({@link io.partkit.replica.TargetPlacement}, {@link
 *     io.partkit.replica.Control#place}), the first table round robin, each migration and join a
 *     new table that makes a node the partition's target primary
 * @param numbering how the table numbers keys ({@link io.partkit.replica.Numbering}): {@value
 *     #HASHED} (the core's hash halves), {@value #KEYS} (key ranges, the first table two of the
 *     workload's consecutive keys a partition, the last open-ended; splits cut at a key the
 *     partition holds) or {@value #TOKENS} (a token ring of evenly spaced tokens, the first range
 *     wrapping; splits cut a range in halves)
 * @param wipes whether the faults also wipe nodes' disks under their numbers, the control not
 *     told ({@link Fault.Kind#WIPE}; option {@code wipes=on}, default off)
 * @param truncations whether the faults also cut nodes' logs short while they are down, the
 *     control not told ({@link Fault.Kind#TRUNCATE}; option {@code truncations=on}, default off)
 * @param merges whether the control also merges halves of splits back ({@link
 *     Fault.Kind#MERGE}; option {@code merges=on}, default off)
 */
public record SimulationSpec(int nodes, int replicas, int partitions, Duration time,
    int concurrency, int opsPerKey, int threadsPerKey, Optional<Mutant> mutant,
    String strategy, String numbering, boolean wipes, boolean truncations, boolean merges) {

  /** The {@code strategy} option's default: the control places copies by its own rule. */
  public static final String CORE_PLACEMENT = "core";
  /** The {@code strategy} option for targets a coordinator hands the control while it runs. */
  public static final String TARGETS_PLACEMENT = "targets";

  /** The {@code numbering} option for the core's hash halves, its default. */
  public static final String HASHED = "hashed";
  /** The {@code numbering} option for key ranges. */
  public static final String KEYS = "keys";
  /** The {@code numbering} option for a token ring. */
  public static final String TOKENS = "tokens";
  /** The workload's keys a partition of the first table of key ranges holds. */
  static final int KEYS_A_RANGE = 2;

  /** The options {@code --option} takes, with their defaults. */
  public static final Map<String, String> OPTIONS = new TreeMap<>(Map.of(
      "replicas", "3", "partitions", "16", "concurrency", "10", "ops-per-key", "200",
      "threads-per-key", "5", "strategy", CORE_PLACEMENT, "numbering", HASHED, "wipes", "off",
      "truncations", "off", "merges", "off"));

  public SimulationSpec {
    require(nodes >= 1 && nodes <= 64, "nodes must be 1..64: " + nodes);
    require(replicas >= 1 && replicas <= nodes, "replicas must be 1..nodes (" + nodes + "): "
        + replicas);
    require(partitions >= 1 && partitions <= 4096, "partitions must be 1..4096: " + partitions);
    require(!time.isNegative() && !time.isZero(), "time must be positive: " + time);
    require(concurrency >= 1, "concurrency must be at least 1: " + concurrency);
    require(opsPerKey >= 1, "ops-per-key must be at least 1: " + opsPerKey);
    require(threadsPerKey >= 1, "threads-per-key must be at least 1: " + threadsPerKey);
    if (!strategy.equals(CORE_PLACEMENT) && !strategy.equals(TARGETS_PLACEMENT)) {
      require(replicas <= Partitioner.MAX_REPLICAS, "replicas must be 1.."
          + Partitioner.MAX_REPLICAS + " with a strategy (" + strategy + "): " + replicas);
      placement(strategy); // refuses an unknown strategy, or one that cannot place the core's
    }
    require(List.of(HASHED, KEYS, TOKENS).contains(numbering), "unknown numbering " + numbering
        + "; known: " + HASHED + ", " + KEYS + ", " + TOKENS);
  }

  /**
   * The first table's scheme: the core's hash halves, key ranges over the workload's keys (eight
   * big-endian bytes each, numbered from 0) or a ring of evenly spaced tokens.
   */
  public PartitionScheme scheme() {
    return switch (numbering) {
      case KEYS -> {
        List<byte[]> splits = new ArrayList<>();
        for (int i = 1; i < partitions; i++) {
          splits.add(Bytes.ofLong((long) i * KEYS_A_RANGE).toArray());
        }
        yield KeyRanges.of(splits);
      }
      case TOKENS -> {
        // Evenly spaced, half a range off the hash slots' bounds: a ring on those bounds would
        // number keys exactly as the hash halves do (the two murmur3 hashes agree on them), and
        // the first range would not wrap.
        long step = Long.divideUnsigned(-1L, partitions);
        long[] tokens = new long[partitions];
        for (int i = 0; i < partitions; i++) {
          tokens[i] = Long.MIN_VALUE + step * i + step / 2;
        }
        yield TokenRanges.of(tokens);
      }
      default -> new HashSlots(partitions, KeyHash.MURMUR3_128);
    };
  }

  /**
   * The placement of a partkit strategy the control is given, empty for the control's own rule
   * and for targets (which the cluster hands it as they change).
   *
   * @throws IllegalArgumentException naming an unknown strategy with the known ones, or one
   *     whose partitions are not the core's hash slots
   */
  public Optional<Placement> placement() {
    return strategy.equals(CORE_PLACEMENT) || targeted() ? Optional.empty()
        : Optional.of(placement(strategy));
  }

  /** Whether a coordinator outside the control hands it targets ({@value #TARGETS_PLACEMENT}). */
  public boolean targeted() {
    return strategy.equals(TARGETS_PLACEMENT);
  }

  private static Placement placement(String name) {
    Partitioners strategies = Partitioners.load(SimulationSpec.class.getClassLoader());
    PartitionerProvider provider = strategies.provider(name).orElseThrow(() ->
        new IllegalArgumentException("unknown strategy " + name + "; known: " + CORE_PLACEMENT
            + " (the control's own), " + TARGETS_PLACEMENT + " (a coordinator's), "
            + String.join(", ", strategies.names())));
    return StrategyPlacement.of(provider);
  }

  /**
   * A spec from the command line's values: {@code options} as {@code --option k=v} gave them.
   *
   * @throws IllegalArgumentException naming an unknown option, a value that is not a number, or
   *     a value out of range, with what is known
   */
  public static SimulationSpec of(int nodes, Duration time, Map<String, String> options,
      Optional<Mutant> mutant) {
    for (String k : options.keySet()) {
      require(OPTIONS.containsKey(k), "unknown option " + k + "; known: "
          + String.join(", ", OPTIONS.keySet()));
    }
    return new SimulationSpec(nodes, number(options, "replicas"), number(options, "partitions"),
        time, number(options, "concurrency"), number(options, "ops-per-key"),
        number(options, "threads-per-key"), mutant,
        options.getOrDefault("strategy", CORE_PLACEMENT).trim(),
        options.getOrDefault("numbering", HASHED).trim(), onOff(options, "wipes"),
        onOff(options, "truncations"), onOff(options, "merges"));
  }

  /** The same spec with another time (shrinking shortens runs). */
  public SimulationSpec withTime(Duration t) {
    return new SimulationSpec(nodes, replicas, partitions, t, concurrency, opsPerKey,
        threadsPerKey, mutant, strategy, numbering, wipes, truncations, merges);
  }

  /** Every option's effective value, defaults included. */
  public Map<String, String> effectiveOptions() {
    Map<String, String> m = new TreeMap<>();
    m.put("replicas", Integer.toString(replicas));
    m.put("partitions", Integer.toString(partitions));
    m.put("concurrency", Integer.toString(concurrency));
    m.put("ops-per-key", Integer.toString(opsPerKey));
    m.put("threads-per-key", Integer.toString(threadsPerKey));
    m.put("strategy", strategy);
    m.put("numbering", numbering);
    m.put("wipes", wipes ? "on" : "off");
    m.put("truncations", truncations ? "on" : "off");
    m.put("merges", merges ? "on" : "off");
    return m;
  }

  private static boolean onOff(Map<String, String> options, String key) {
    String v = options.getOrDefault(key, OPTIONS.get(key)).trim();
    require(v.equals("on") || v.equals("off"), "option " + key + " must be on or off: '" + v
        + "'");
    return v.equals("on");
  }

  private static int number(Map<String, String> options, String key) {
    String v = options.getOrDefault(key, OPTIONS.get(key));
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("option " + key + " must be a whole number: '" + v + "'");
    }
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
