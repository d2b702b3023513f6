package io.partkit.bench.live;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The subjects of a live run: each system with each placement it can run. partkit's kv store (its
 * replica cores) runs under a partkit coordinator with each strategy of a fixed partition count
 * (its control's own rule is left out: no placement the bench predicts from describes it, and it
 * moves nothing on a join; token rings and key ranges are left out too: a leave merges their
 * ranges, which the cores cannot yet); Ignite its own affinity and partkit's through the adapter;
 * Hazelcast its own partitioning and partkit's.
 */
final class LiveSubjects {

  /** The systems {@code --systems} picks from, in report order. */
  static final List<String> SYSTEMS = List.of("kv", "ignite", "hazelcast");

  /** Partitions of the kv store's and Ignite's subjects (Hazelcast: 271). */
  static final int KV_PARTITIONS = 64;
  static final int IGNITE_PARTITIONS = 256;
  /** Hazelcast's own count, which its members keep. */
  static final int HAZELCAST_PARTITIONS = 271;
  /** Copies of each key on every system: one backup. */
  static final int COPIES = 2;

  /**
   * One subject: the harness system, the placement as the report names it, the system's options
   * that select it (one backup copy everywhere), the offline bench's subject that predicts it, and
   * the partitions its options give (for a prediction when the system cannot be asked).
   */
  record LiveSubject(String system, String placement, Map<String, String> options,
      String prediction, int partitions) {

    String label() {
      return system + "/" + placement;
    }
  }

  private LiveSubjects() {}

  /**
   * Heap of a data node, in MB: the system's default plus room for what four nodes hold of
   * {@code keys} keys in two copies (after the kill), at about 600 bytes a copy in a JVM's heap
   * with the collector's headroom.
   */
  static int heapMb(String system, int keys) {
    int base = switch (system) {
      case "kv" -> 128;
      default -> 256;
    };
    return base + (int) ((long) keys * 2 / 4 * 600 / 1_000_000);
  }

  /**
   * Ignite's off-heap data region per node, in MB: its default 64 plus about 500 bytes for each
   * copy four nodes hold of {@code keys} keys (entry, page and index overhead included).
   */
  static int igniteRegionMb(int keys) {
    return 64 + (int) ((long) keys * 2 / 4 * 500 / 1_000_000);
  }

  /** The subjects of {@code systems}, their nodes sized for {@code keys} keys, in report order. */
  static List<LiveSubject> of(List<String> systems, int keys) {
    List<LiveSubject> subjects = new ArrayList<>();
    for (String system : systems) {
      switch (system) {
        case "kv" -> {
          for (String strategy : List.of("fixed", "rendezvous")) {
            subjects.add(new LiveSubject("kv", strategy, Map.of("metadata", "coordinator",
                "strategy", strategy, "replicas", "2", "partitions",
                Integer.toString(KV_PARTITIONS), "heap-mb", Integer.toString(heapMb("kv", keys))),
                "partkit:" + strategy, KV_PARTITIONS));
          }
        }
        case "ignite" -> {
          subjects.add(ignite("native", "ignite-rendezvous", keys));
          subjects.add(ignite("partkit-fixed", "partkit:fixed", keys));
          subjects.add(ignite("partkit-rendezvous", "partkit:rendezvous", keys));
        }
        case "hazelcast" -> {
          String heap = Integer.toString(heapMb("hazelcast", keys));
          subjects.add(new LiveSubject("hazelcast", "native",
              Map.of("partitioning", "hazelcast", "backups", "1", "heap-mb", heap), "hazelcast",
              HAZELCAST_PARTITIONS));
          subjects.add(new LiveSubject("hazelcast", "partkit",
              Map.of("partitioning", "partkit", "backups", "1", "heap-mb", heap), "hazelcast",
              HAZELCAST_PARTITIONS));
        }
        default -> throw new IllegalArgumentException("unknown system '" + system
            + "' (known: " + SYSTEMS + ")");
      }
    }
    return subjects;
  }

  private static LiveSubject ignite(String affinity, String prediction, int keys) {
    return new LiveSubject("ignite", affinity, Map.of("affinity", affinity, "backups", "1",
        "partitions", Integer.toString(IGNITE_PARTITIONS), "heap-mb",
        Integer.toString(heapMb("ignite", keys)), "region-mb",
        Integer.toString(igniteRegionMb(keys))), prediction, IGNITE_PARTITIONS);
  }
}
