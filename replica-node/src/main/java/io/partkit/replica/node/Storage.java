package io.partkit.replica.node;

import io.partkit.replica.Record;
import java.io.IOException;
import java.util.List;

/**
 * Where a driver makes its state machine's records durable: appended in order, and reported
 * durable later, by count, to the callback the storage was opened with. A node's is its {@link
 * Wal}; the control's is its own log, or one value in the coordinator's store ({@link
 * StoredControlState}).
 */
interface Storage extends AutoCloseable {

  /**
   * Takes {@code records}, which are not durable yet.
   *
   * @return how many records the storage has taken with these: the count its durability report
   *     must reach before anything that depends on them is sent
   * @throws IOException when they cannot be taken (the process must stop)
   */
  long append(List<Record> records) throws IOException;

  @Override
  void close() throws IOException;
}
