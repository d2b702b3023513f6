package io.partkit.kvstore;

/**
 * Where one partition stands on one node. The codes are persisted in every node's write-ahead
 * log: never renumber them.
 *
 * <pre>
 *  ABSENT --ASSIGN--> OWNED --FENCE--> MIGRATING_OUT --DROP--> ABSENT      (source side)
 *                       ^                   |
 *                       +-----UNFENCE-------+                                (roll back)
 *  ABSENT --RECEIVE--> RECEIVING --> RECEIVED --ACTIVATE--> OWNED          (target side)
 *                          |             |
 *                          +---ABORT-----+--> ABSENT                        (roll back)
 *
 *  ABSENT/OWNED --CONFIGURE backup--> BACKUP --CONFIGURE primary--> OWNED   (replication)
 *  BACKUP --DROP--> ABSENT
 * </pre>
 */
public enum PartitionState {
  /** Not held here; requests get a redirect carrying the last epoch this node knew for it. */
  ABSENT(0),
  /** Held and served: reads and writes carrying at least the owner's epoch are accepted. */
  OWNED(1),
  /** Fenced for a move: every request gets the retriable MOVING answer, data is frozen. */
  MIGRATING_OUT(2),
  /** Being copied in; not served (MOVING). A crash here leaves a partial copy to re-fetch. */
  RECEIVING(3),
  /** Completely copied and durable, waiting for the table commit; not served yet (MOVING). */
  RECEIVED(4),
  /**
   * A copy kept in step by the partition's primary (REPLICATE at its epoch); never served to
   * clients (REDIRECT). Moving it to a newer epoch fences the primary of the older one.
   */
  BACKUP(5);

  private final int code;

  PartitionState(int code) {
    this.code = code;
  }

  /** The persisted code. */
  public int code() {
    return code;
  }

  public static PartitionState ofCode(int code) {
    for (PartitionState s : values()) {
      if (s.code == code) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown partition state code: " + code);
  }
}
