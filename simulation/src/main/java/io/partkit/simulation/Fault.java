package io.partkit.simulation;

/**
 * One planned fault: what strikes at virtual millisecond {@code at}, and for how long.
 *
 * @param target which node (or partition, for {@link Kind#POWER_LOSS_GROUP}, {@link
 *     Kind#MIGRATE}, {@link Kind#SPLIT} and {@link Kind#MERGE}) it strikes: an index taken
 *     modulo the live nodes (or partitions) when it strikes, so that a plan stays valid as nodes
 *     come and go
 * @param other a second index (a migration's target node, a partition's shape, when the control
 *     crashes)
 */
public record Fault(long at, Kind kind, long duration, int target, int other) {

  /** The kinds of fault a seed may use. */
  public enum Kind {
    /** A network partition of one of verify's grudge shapes over the nodes and the control. */
    PARTITION("partition"),
    /** One node stops hearing another; the other way still works. */
    ONE_WAY("one-way-cut"),
    /** A node stops (SIGSTOP) and resumes with everything it was sent meanwhile. */
    PAUSE("pause"),
    /** A process crash (kill -9): the operating system keeps what was written, synced or not. */
    KILL("kill"),
    /** A power loss: only synced records survive; the unsynced tail may be cut anywhere. */
    POWER_LOSS("power-loss"),
    /** A power loss of every member of one partition at once (a rack). */
    POWER_LOSS_GROUP("power-loss-group"),
    /** The disk fills: the node's next append fails and it stops; freed when it restarts. */
    DISK_FULL("disk-full"),
    /** A record on disk is damaged while the node is down: it must be detected, never served. */
    CORRUPT("corrupt-record"),
    /** A new node joins and a partition moves to it. */
    JOIN("join"),
    /** A node leaves gracefully: its copies move elsewhere. */
    LEAVE("leave"),
    /** A node is lost for good (its disk with it); a fresh node takes its place. */
    LOSE("lose"),
    /** A live migration of a partition's primary copy to another node. */
    MIGRATE("migrate"),
    /**
     * A node cut off from the control alone, long enough to be declared down: its partitions
     * fail over while clients, which still reach it, may keep sending it requests.
     */
    CONTROL_CUT("control-cut"),
    /**
     * The control splits a partition in two at a new epoch, the new one with the same members;
     * the nodes divide their copies while clients still route by the tables they hold.
     */
    SPLIT("split"),
    /**
     * The control crashes, at once ({@code other} 0), as it makes its next write to its store
     * (1), or once its store holds a member not yet level, a join under way (2): its volatile
     * state and the records its store had not made durable are lost, messages to it are lost
     * while it is down, and it restarts from its durable records. Or (3) a standby takes over
     * from it while it runs: the successor restores from the store, and the control runs on,
     * deposed, until its next write fails or the fault's duration ends.
     */
    CONTROL_RESTART("control-restart"),
    /**
     * A node's disk is wiped while it is down and it restarts empty under its number, the control
     * not told (unlike {@link #LOSE}): it must not serve, or count as holding, what it lost.
     */
    WIPE("wipe"),
    /**
     * A node's log is cut short at a record boundary while it is down (a backup restored over it,
     * a file system that lost a synced tail, a last segment deleted), not emptied, the control not
     * told: it must not serve, or count as holding, the records it lost.
     */
    TRUNCATE("truncate"),
    /**
     * The control merges two halves of a split back into one at a new epoch, when it finds the
     * merge safe as the table stands (one configuration, all level); the nodes combine their
     * copies while clients still route by the tables they hold.
     */
    MERGE("merge");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /** The name in histories and reports. */
    public String label() {
      return label;
    }
  }

  @Override
  public String toString() {
    return kind.label() + "@" + at + "ms" + (duration > 0 ? "/" + duration + "ms" : "")
        + " #" + target + (other != 0 ? "," + other : "");
  }
}
