package io.partkit.harness.system;

import java.util.Map;

/**
 * A client of plain keys and byte values, for load that is measured rather than checked (no
 * history is recorded): {@code partkit bench --live}'s preload and steady read/write mix. Used by
 * one thread at a time. A key is a {@code long}; systems store it as partkit encodes one (8
 * big-endian bytes) or as their own long key, so that their placement sees the key itself.
 */
public interface DataClient extends AutoCloseable {

  /**
   * Stores {@code value} under {@code key}.
   *
   * @throws Exception when the system did not acknowledge it (refused, timed out, unreachable)
   */
  void put(long key, byte[] value) throws Exception;

  /**
   * The value under {@code key}, or null when there is none.
   *
   * @throws Exception when the system did not answer
   */
  byte[] get(long key) throws Exception;

  /**
   * Stores every entry, in as few round trips as the system allows (a preload); one at a time
   * unless the system has a batch call.
   *
   * @throws Exception when an entry was not acknowledged (some may have been stored)
   */
  default void putAll(Map<Long, byte[]> entries) throws Exception {
    for (Map.Entry<Long, byte[]> e : entries.entrySet()) {
      put(e.getKey(), e.getValue());
    }
  }

  @Override
  void close();
}
