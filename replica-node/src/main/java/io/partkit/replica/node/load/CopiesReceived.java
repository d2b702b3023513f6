package io.partkit.replica.node.load;

/**
 * What a replica node received from other nodes, since its process started, to bring its copies
 * of partitions to their primaries' state: the figures a rebalance is measured by ({@code
 * partkit bench --live}), counted by the node itself and read with its load view ({@link
 * io.partkit.replica.node.ReplicaClient#received}).
 *
 * <p>A copy arrives one of two ways. A whole copy comes as snapshot pages: every entry of every
 * page counts, and the page that completes the copy counts one partition. A copy that already
 * holds the state the primary began from is levelled by name: it takes the primary's last writes
 * (or undoes its own last ones) and counts the keys that changed, and one level, but no
 * partition, since it created no copy. Replicated writes are not counted: they keep a copy
 * current, they do not create one.
 *
 * @param keys entries received in snapshot pages, plus keys changed by levels by name (a key
 *     sent twice, as in a copy begun again, counts twice)
 * @param bytes key and value bytes of those entries (a key a level removed: its key bytes)
 * @param partitions whole copies completed here (the last page of a snapshot taken)
 * @param pages snapshot pages taken
 * @param levels levels taken by name, without a copy
 */
public record CopiesReceived(long keys, long bytes, long partitions, long pages, long levels) {

  /** Nothing received. */
  public static final CopiesReceived NONE = new CopiesReceived(0, 0, 0, 0, 0);

  /**
   * Canonical constructor.
   *
   * @throws IllegalArgumentException if a count is negative
   */
  public CopiesReceived {
    if (keys < 0 || bytes < 0 || partitions < 0 || pages < 0 || levels < 0) {
      throw new IllegalArgumentException("received copies are counted from 0: " + keys
          + " keys, " + bytes + " bytes, " + partitions + " partitions, " + pages + " pages, "
          + levels + " levels");
    }
  }
}
