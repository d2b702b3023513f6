package io.partkit.replica;

import java.util.List;

/**
 * How far a node's log reached when it was last made durable, as its driver records it beside
 * the log, and what a start makes of a log measured against it. Replay sees only what is in the
 * log, and a log that lost its last records (a backup restored over it, a file system that lost a
 * synced tail, an operator who deleted the last segment) looks exactly like a shorter, intact
 * one: it keeps its incarnation, and the control would go on counting its copies level although
 * it no longer holds the writes that made them so. Only a mark kept apart from the log tells the
 * two apart.
 *
 * <p>A short log is treated as a lost disk, as a wiped one is: the node starts empty and draws a
 * new incarnation ({@link Replica#incarnate}), so the control counts every copy of the earlier
 * one lost and copies them afresh from the level members; the driver keeps the short log aside
 * for an operator rather than delete it. Starting from the short log's records instead would
 * serve, and count as level, an older state: its fences and acknowledged writes are what it is
 * missing. A node cannot tell which of its copies were the last level ones; the control can, and
 * a partition with no other level copy is then counted lost, never served short.
 *
 * <p>Both drivers (the TCP node's write-ahead log and the simulator's) judge with {@link #judge},
 * so that the rule is one piece of code.
 *
 * @param records how many records the log held
 * @param bytes how many bytes of it those were (0 for a log that has no bytes: the simulator's)
 */
public record LogReach(long records, long bytes) {

  public LogReach {
    if (records < 0 || bytes < 0) {
      throw new IllegalArgumentException("a log's reach is not negative: " + records
          + " records, " + bytes + " bytes");
    }
  }

  /** What a start makes of its log. */
  public sealed interface Verdict {

    /**
     * The records a core starts from: the log's, or none when it is short (a lost disk: the core
     * then takes a fresh incarnation).
     */
    List<Record> startFrom(List<Record> log);
  }

  /**
   * No reach was recorded: a log written before drivers recorded one, or a new node. It starts
   * from its log, as it always did.
   */
  public record Unrecorded() implements Verdict {
    @Override
    public List<Record> startFrom(List<Record> log) {
      return log;
    }
  }

  /** The log holds all it reached (and perhaps more that was written and not yet marked). */
  public record Whole() implements Verdict {
    @Override
    public List<Record> startFrom(List<Record> log) {
      return log;
    }
  }

  /**
   * The log holds less than it reached, or is not the log the reach was recorded for: it starts
   * from nothing, a lost disk.
   *
   * @param reached what the reach records
   * @param found what the log holds
   * @param sameLog whether the log's first {@code reached.bytes()} bytes, as far as it has them,
   *     are the ones the reach was recorded for
   */
  public record Shorter(LogReach reached, LogReach found, boolean sameLog) implements Verdict {
    @Override
    public List<Record> startFrom(List<Record> log) {
      return List.of();
    }

    /** What is missing, for a log line: the records and bytes the log lacks. */
    public String missing() {
      if (!sameLog) {
        return "the log is not the one its reach was recorded for (its first " + reached.bytes
            + " bytes differ): none of the " + reached.records + " records it reached can be"
            + " vouched for";
      }
      return "the log holds " + found.records + " records" + bytesOf(found) + " but reached "
          + reached.records + bytesOf(reached) + " when last made durable: records "
          + found.records + ".." + (reached.records - 1) + " are missing";
    }

    private static String bytesOf(LogReach r) {
      return r.bytes > 0 ? " (" + r.bytes + " bytes)" : "";
    }
  }

  /**
   * Judges a log against its reach.
   *
   * @param reached the reach recorded beside the log, or null when none was
   * @param found how far the log as read reaches
   * @param sameLog whether the log's bytes up to the reach are those it was recorded for (a
   *     driver that cannot tell, or whose log has no bytes, says true)
   */
  public static Verdict judge(LogReach reached, LogReach found, boolean sameLog) {
    if (reached == null) {
      return new Unrecorded();
    }
    if (!sameLog || found.records < reached.records || found.bytes < reached.bytes) {
      return new Shorter(reached, found, sameLog);
    }
    return new Whole();
  }
}
