package io.partkit.kvstore.client;

import io.partkit.kvstore.KvEntry;
import java.util.Iterator;

/**
 * A range scan read lazily, page by page ({@link KvClient#scanner}): the entries of the range in
 * ascending unsigned byte order of their keys, each key once. It holds no resources on the
 * nodes (every page is a separate request that names where to go on), so it needs no closing
 * and may be abandoned at any point.
 *
 * <p>{@link #next} and {@link #hasNext} may block for a request and throw {@link KvException}
 * when a partition could not be read within the client's retry budget. Not thread-safe, except
 * that the counters may be read from any thread.
 */
public interface KvScanner extends Iterator<KvEntry> {

  /** Distinct partitions asked for a page so far. */
  int partitionsTouched();

  /** Distinct nodes that answered so far. */
  int nodesTouched();

  /** Pages asked for and answered so far. */
  int requests();

  /** Requests refused (MOVING, REDIRECT, UNAVAILABLE) or unanswered, and sent again, so far. */
  int retries();
}
