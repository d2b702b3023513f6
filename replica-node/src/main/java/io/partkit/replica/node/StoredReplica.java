package io.partkit.replica.node;

import io.partkit.replica.Record;
import io.partkit.replica.Replica;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * What a node holds on its disk, read beside the running node without touching its log: for a
 * harness that checks, after a run, that each partition's copies are where the control's table
 * puts them.
 */
public final class StoredReplica {

  /** The log's file name in a node's {@code --data} directory. */
  public static final String LOG = Wal.FILE;

  private StoredReplica() {}

  /**
   * The durable state of node {@code self} whose log is {@code log} ({@link #LOG} in its {@code
   * --data}): one {@link Record.Checkpoint} per partition it knows, a large one's data in pages
   * before it (each followed by the pages of a copy of it still arriving; {@link
   * io.partkit.replica.Checkpoints#whole} joins them), as a restart from the log's intact records
   * would have it (a record being appended is left out; no log: none).
   */
  public static List<Record> checkpoint(Path log, int self) throws IOException {
    Replica.Restoring r = Replica.restoring(self, ReplicaNodeMain.TIMING,
        Replica.SNAPSHOT_PAGE_ENTRIES);
    Wal.readIntact(log, r::replay);
    return r.restored().checkpoint();
  }
}
