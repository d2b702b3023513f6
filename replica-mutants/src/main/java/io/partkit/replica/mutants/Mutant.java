package io.partkit.replica.mutants;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A planted bug: a realistic mistake in the protocol or its drivers that the simulator, and
 * {@code partkit verify} on real processes, must catch. Each is a change made around the
 * unchanged replica core and control (a driver that acts too early, a message rewritten, a fast
 * path added), so that no production code path carries a branch for it and nothing a node's
 * command line or wire says can turn one on. The node-side ones are {@link NodeMutations}.
 */
public enum Mutant {
  /**
   * The node's driver sends messages (a backup's acknowledgement, a primary's reply) before the
   * records they depend on are synced: a power loss then loses an acknowledged write.
   */
  ACK_BEFORE_SYNC("ack-before-sync", "messages leave before their records are synced"),
  /**
   * The node never logs the records that hold writes, and counts them durable with the rest: a
   * restart, even after a clean process kill that keeps every byte written, comes back without
   * them though it acknowledged them.
   */
  UNLOGGED_WRITES("unlogged-writes", "writes are acknowledged but never logged"),
  /**
   * The primary acknowledges a write as soon as it has it itself and replicates it afterwards
   * (asynchronous replication): a backup promoted before it arrives has lost an acknowledged write.
   */
  ASYNC_REPLICATION("async-replication", "primaries acknowledge writes before backups hold them"),
  /**
   * The primary answers reads and scans from its own copy without asking its backups (a lease
   * nobody granted): a primary the control has replaced, which clients still reach, serves stale
   * values.
   */
  READ_WITHOUT_CONFIRM("read-without-confirm",
      "primaries answer reads and scans without confirmation"),
  /**
   * The control counts a member as level as soon as it is configured (outside migrations), not
   * once its primary says the member holds its state: a failover may promote a re-replicated
   * member that holds nothing yet.
   */
  LEVEL_ON_CONFIGURE("level-on-configure", "members count as level once configured"),
  /**
   * The control believes a migration's target is level as soon as it joined, and cuts over
   * before the copy caught up: the new primary levels its backups to what it has.
   */
  CUTOVER_BEFORE_CAUGHT_UP("cutover-before-caught-up",
      "migrations cut over before the target caught up"),
  /**
   * A backup ahead of the state a new level is offered from ({@code Message.Level}: it holds
   * writes of the old primary's last round that the new primary never got) keeps them and takes
   * the level at its own sequence number, as if being ahead were harmless: it then holds writes
   * no one acknowledged and takes the new primary's writes of those numbers for ones it has.
   */
  REBASE_KEEPS_WRITES_AHEAD("rebase-keeps-writes-ahead",
      "a backup ahead of a new level keeps its writes instead of undoing them"),
  /**
   * The node replays its log without checking records: a damaged record is served instead of
   * stopping the node.
   */
  UNCHECKED_RECORDS("unchecked-records", "a damaged log record is replayed, not detected"),
  /**
   * A node carries out a split's data move but its request path keeps the old numbering: a read
   * (or scan) routed by a table from before the split is answered from the old partition, where
   * the moved key no longer is, instead of being refused.
   */
  SPLIT_SERVES_OLD_NUMBERING("split-serves-old-numbering",
      "reads routed by the pre-split table are served from the old partition"),
  /**
   * The control's driver sends configurations before the store holds the records of the epochs
   * they announce: a crash loses those records, and the restarted control hands out an epoch
   * again, with another configuration.
   */
  CONTROL_ACTS_BEFORE_DURABLE("control-acts-before-durable",
      "the control's configurations leave before their records are durable"),
  /**
   * The control's store keeps each partition's configuration but not which members are level,
   * and the restarted control counts every member level: a failover after a restart may promote
   * a member that holds nothing yet.
   */
  CONTROL_FORGETS_LEVEL("control-forgets-level",
      "a restarted control counts every member level"),
  /**
   * A standby that takes over reads the control's state from the store but does not fence the
   * control it succeeds (no compare-and-set on the version it read, no write of its own first):
   * the deposed control's write in flight lands after the read, and it goes on deciding, writing
   * and sending, so two controls hand out the same epochs with different configurations.
   */
  TAKEOVER_WITHOUT_FENCE("takeover-without-fence",
      "a control taken over is not fenced and goes on deciding");

  private final String label;
  private final String description;

  Mutant(String label, String description) {
    this.label = label;
    this.description = description;
  }

  /** The name {@code --mutant} takes. */
  public String label() {
    return label;
  }

  /** What it plants, in a few words. */
  public String description() {
    return description;
  }

  /** The mutant named {@code label}, if any. */
  public static Optional<Mutant> named(String label) {
    return Arrays.stream(values()).filter(m -> m.label.equals(label)).findFirst();
  }

  /** Every mutant's name, in declaration order. */
  public static List<String> labels() {
    return Arrays.stream(values()).map(Mutant::label).toList();
  }
}
