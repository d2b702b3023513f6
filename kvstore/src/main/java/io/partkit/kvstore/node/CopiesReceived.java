package io.partkit.kvstore.node;

import io.partkit.kvstore.wire.ReceivedCopies;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The node's counts of what it received from other nodes to create copies it did not hold,
 * since it started: entries and their key and value bytes as copy pages arrive (a migration's
 * snapshot, pre-copy, drain and delta pages; a new backup's catch-up pages), and partition
 * copies completed (a moved partition once RECEIVED, a backup once caught up). Replicated writes
 * are not counted: they keep a copy current, they do not create one. Read without any lock, for
 * the RECEIVED answer and the meters.
 */
final class CopiesReceived {

  private final AtomicLong entries = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong partitions = new AtomicLong();

  /** A page of {@code count} entries, of {@code pageBytes} key and value bytes, arrived. */
  void page(int count, long pageBytes) {
    entries.addAndGet(count);
    bytes.addAndGet(pageBytes);
  }

  /** A partition copy is complete here. */
  void completed() {
    partitions.incrementAndGet();
  }

  long entries() {
    return entries.get();
  }

  long bytes() {
    return bytes.get();
  }

  long partitions() {
    return partitions.get();
  }

  /** The counts now, for the RECEIVED answer. */
  ReceivedCopies snapshot() {
    return new ReceivedCopies(entries.get(), bytes.get(), partitions.get());
  }
}
