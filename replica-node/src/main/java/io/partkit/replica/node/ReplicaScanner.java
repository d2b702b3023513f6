package io.partkit.replica.node;

import java.util.Iterator;

/**
 * A scan of a range of keys read lazily, page by page, as it is iterated ({@link
 * ReplicaClient#scanner}): the entries of the range in ascending unsigned order of their keys'
 * bytes, each key once. It holds nothing on the nodes (each page is a request of its own that
 * names where to go on), so it needs no closing and may be dropped at any point.
 *
 * <p>What a scan sees, when the range is written to, a partition fails over or splits meanwhile:
 *
 * <ul>
 *   <li>Keys come out strictly ascending, each at most once.
 *   <li>Every key that exists when the scan begins (its write took effect before; the store
 *       deletes no key) is returned, exactly once, whatever happens to its partition during the
 *       scan: a page refused or unanswered is
 *       asked again of the partition's primary in a fresh table, from the same key; a table that
 *       numbers the partitions otherwise (a split) has the scan plan again from the key after the
 *       last one it returned, with what it had read beyond it dropped and read again.
 *   <li>A key first written during the scan may or may not be returned: it is when its write was
 *       visible before the page of its part of the range was read.
 *   <li>Each value returned is one the key held at some moment during the scan: its page was read
 *       as a read is, at the partition's primary once its backups confirmed it still leads, so the
 *       value is one a write made visible (every copy holds it; no crash takes it back), never one
 *       a lost or refused write left. It may be older than a value the key took later in the scan.
 *   <li>The entries of one page are one partition's part of the range at one moment; nothing holds
 *       across pages or partitions: the scan is no atomic snapshot of the range.
 * </ul>
 *
 * <p>{@link #hasNext} and {@link #next} may block for a page. Each page has the client's timeout,
 * within which a refusal, a lost connection or no answer is asked again (a read changes nothing);
 * a page not had within it throws {@link ScanFailedException}, and the scanner stays where it was:
 * {@link #hasNext} asks again. Not thread-safe: one thread iterates a scanner (the client it came
 * from is shared as usual); its counters may be read from any thread.
 */
public interface ReplicaScanner extends Iterator<ReplicaClient.BytesEntry> {

  /** Distinct partitions asked for a page so far. */
  int partitionsTouched();

  /** Distinct nodes that answered so far. */
  int nodesTouched();

  /** Pages asked for and answered so far. */
  int requests();

  /** Pages refused or unanswered, and asked again, so far (a failover, a split, a lost answer). */
  int retries();
}
