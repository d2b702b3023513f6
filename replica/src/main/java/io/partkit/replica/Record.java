package io.partkit.replica;

import java.util.List;
import java.util.SortedMap;

/**
 * What a replica makes durable. Replaying any prefix of the records a replica produced, in order,
 * gives a state it may restart from ({@link Replica#restore}).
 */
public sealed interface Record {

  int partition();

  /** The partition's configuration was adopted. */
  record Configured(int partition, long epoch, int primary, List<Integer> backups)
      implements Record {
    public Configured {
      backups = List.copyOf(backups);
    }
  }

  /** As primary, a levelling numbered {@code level} began. */
  record LevelBegun(int partition, long epoch, long level) implements Record {}

  /** A write numbered {@code seq}. */
  record Written(int partition, long epoch, long level, long seq, Bytes key, Bytes value)
      implements Record {}

  /** As backup of {@code primary}, a snapshot replaced the partition's data. */
  record Snapshotted(int partition, long epoch, int primary, long level, long seq,
      SortedMap<Bytes, Bytes> data) implements Record {
    public Snapshotted {
      data = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(data));
    }
  }
}
