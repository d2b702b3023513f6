package io.partkit.replica.node;

import io.partkit.replica.Record;
import java.util.Optional;

/**
 * The line a node prints for a record of its own that changes what it holds or serves of one
 * partition: a configuration adopted, a levelling begun, a whole copy taken, a rebase, a split
 * or a merge. Writes and pages of a copy in progress are not events (one line per request would
 * drown the few that explain a stall). Every line begins with the node and the partition, so one
 * partition can be followed across every node's output ({@code grep "partition 8[: ]"}).
 */
final class EventLines {

  private EventLines() {}

  /** The event line of {@code r} as node {@code self} records it, if it is an event. */
  static Optional<String> of(int self, Record r) {
    if (r instanceof Record.Written) {
      return Optional.empty(); // most records: nothing built for them on the round's path
    }
    String at = "node " + self + " partition " + r.partition();
    if (r instanceof Record.Configured c) {
      String role = c.primary() == self ? "primary" : c.backups().contains(self) ? "backup"
          : "out (primary " + c.primary() + ")";
      return Optional.of(at + " epoch " + c.epoch() + ": configured " + role + ", backups "
          + c.backups() + ", " + c.numbering().describe(c.partition()));
    } else if (r instanceof Record.LevelBegun l) {
      return Optional.of(at + " epoch " + l.epoch() + ": levelling " + l.level()
          + " begun as primary");
    } else if (r instanceof Record.Snapshotted s) {
      return Optional.of(at + " epoch " + s.epoch() + ": took a whole copy of "
          + s.data().size() + " keys from node " + s.primary() + " as of write " + s.seq());
    } else if (r instanceof Record.SnapshotPage p && p.last()) {
      String pages = p.page() == 0 ? "1 page" : (p.page() + 1) + " pages";
      return Optional.of(at + " epoch " + p.epoch() + ": took a whole copy in " + pages
          + " from node " + p.primary() + " as of write " + p.seq());
    } else if (r instanceof Record.Rebased b) {
      return Optional.of(at + " epoch " + b.epoch() + ": rebased on node " + b.primary()
          + " as of write " + b.seq() + " without a copy (" + b.put().size() + " keys put, "
          + b.removed().size() + " removed)");
    } else if (r instanceof Record.Split s) {
      return Optional.of(at + ": split at modulus " + s.modulus() + ", keys moved to partition "
          + s.child());
    } else if (r instanceof Record.Merge m) {
      return Optional.of(at + ": merged with partition " + m.sibling() + ", "
          + m.numbering().describe(m.partition()));
    } else if (r instanceof Record.Born b) {
      return Optional.of("node " + self + ": born as incarnation " + b.incarnation());
    }
    return Optional.empty();
  }
}
