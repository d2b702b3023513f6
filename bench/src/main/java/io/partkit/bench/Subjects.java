package io.partkit.bench;

import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The catalogue of subjects by name. partkit subjects are (strategy, options) pairs resolved
 * through {@link Partitioners}; the native subjects wrap the real libraries.
 */
final class Subjects {

  /** The default subjects, in report order: partkit's first, then the native placements. */
  static final List<String> DEFAULTS = List.of("fixed", "rendezvous", "rendezvous-bounded",
      "tokenring-random", "tokenring-allocator", "range", "ignite-rendezvous", "hazelcast",
      "hazelcast-members", "cassandra-vnodes-256", "cassandra-vnodes-16", "guava-jump");

  /** Load bound of {@code rendezvous-bounded}: no node above 1.10 x its fair share. */
  static final String LOAD_BOUND = "1.10";

  private Subjects() {}

  /** The partkit (strategy, options) pairs behind the default partkit subject names. */
  static Map<String, Map.Entry<String, PartitionerConfig>> partkitDefaults(BenchOptions o) {
    Map<String, Map.Entry<String, PartitionerConfig>> m = new LinkedHashMap<>();
    m.put("fixed", Map.entry("fixed", PartitionerConfig.of("partitions", o.partitions())));
    m.put("rendezvous", Map.entry("rendezvous",
        PartitionerConfig.of("partitions", o.partitions(), "seed", o.seed())));
    m.put("rendezvous-bounded", Map.entry("rendezvous", PartitionerConfig.of(
        "partitions", o.partitions(), "seed", o.seed(), "load-bound", LOAD_BOUND)));
    m.put("tokenring-random", Map.entry("tokenring",
        PartitionerConfig.of("tokens", "random", "vnodes", 256, "seed", o.seed())));
    m.put("tokenring-allocator", Map.entry("tokenring",
        PartitionerConfig.of("tokens", "allocator", "vnodes", 16, "seed", o.seed())));
    // even ranges over the keys' first 8 bytes: on the uniform sample as balanced as slots; the
    // skewed-keys section (SkewBench), which runs with this subject, shows real keys
    m.put("range", Map.entry("range", PartitionerConfig.of("partitions", o.partitions())));
    return m;
  }

  /**
   * A factory for the named subject; creating it may fail (missing strategy, bad options), which
   * the caller reports.
   *
   * @throws IllegalArgumentException if the name is neither known nor a
   *     {@code label=strategy:opt=v,...} spec
   */
  static Supplier<Subject> factory(String name, BenchOptions o, Partitioners partitioners) {
    Map.Entry<String, PartitionerConfig> partkit = partkitDefaults(o).get(name);
    if (partkit != null) {
      return () -> new PartkitSubject(name, partkit.getKey(), partkit.getValue(), partitioners);
    }
    switch (name) {
      case "ignite-rendezvous":
        return () -> new IgniteSubject(o.partitions());
      case "hazelcast":
        return () -> new HazelcastSubject(o.partitions());
      case "hazelcast-members":
        return () -> new HazelcastMembersSubject(o.partitions(), o.hazelcastMembersMax(), o.seed());
      case "cassandra-vnodes-256":
        return () -> new VnodeSubject(256, o.seed());
      case "cassandra-vnodes-16":
        return () -> new VnodeSubject(16, o.seed());
      case "guava-jump":
        return JumpHashSubject::new;
      default:
        break;
    }
    int eq = name.indexOf('=');
    if (eq > 0) {
      String label = name.substring(0, eq);
      String spec = name.substring(eq + 1);
      int colon = spec.indexOf(':');
      String strategy = colon < 0 ? spec : spec.substring(0, colon);
      PartitionerConfig config = PartitionerConfig.empty();
      if (colon >= 0 && colon < spec.length() - 1) {
        for (String pair : spec.substring(colon + 1).split(",")) {
          int e = pair.indexOf('=');
          if (e <= 0) {
            throw new IllegalArgumentException(
                "subject option must be name=value: '" + pair + "' in '" + name + "'");
          }
          config = config.with(pair.substring(0, e).trim(), pair.substring(e + 1).trim());
        }
      }
      PartitionerConfig finalConfig = config;
      return () -> new PartkitSubject(label, strategy, finalConfig, partitioners);
    }
    throw new IllegalArgumentException("unknown subject '" + name + "'; known subjects: "
        + DEFAULTS + ", or label=strategy:option=value,... for any partkit strategy");
  }
}
