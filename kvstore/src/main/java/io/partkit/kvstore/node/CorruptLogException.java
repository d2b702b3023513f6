package io.partkit.kvstore.node;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A write-ahead log damaged before its end: intact records follow the damaged one, so they were
 * acknowledged and must not be dropped as a torn tail would be. The node refuses to start; the
 * message names the file, the offset and what to do.
 */
public final class CorruptLogException extends IOException {

  private final Path file;
  private final long offset;

  CorruptLogException(Path file, long offset, int record, String damage, long nextIntact) {
    super("write-ahead log " + file + " is corrupt at byte offset " + offset + " (record "
        + (record + 1) + ": " + damage + "), and an intact record follows at offset "
        + nextIntact + ", so this is not a torn tail; the node will not start, since dropping"
        + " the records after the damage would lose acknowledged writes. Restore the file from a"
        + " backup, or move the node's data directory away to start it empty");
    this.file = file;
    this.offset = offset;
  }

  /** The damaged log. */
  public Path file() {
    return file;
  }

  /** The byte offset of the damaged record's header. */
  public long offset() {
    return offset;
  }
}
