package io.partkit.kvstore;

import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The one-line form of an event that matters for diagnosing a stall (a partition's
 * configuration adopted, a backup named a suspect, a removal decided or refused), which the
 * nodes print on standard error and the harness's coordinator on standard output:
 * {@code 2026-11-27T08:40:01.123Z node n4 partition 8 epoch 2: CONFIGURE primary ...}. The
 * wall-clock time with milliseconds dates each line against the other processes' lines and
 * the run's history; the fixed prefix lets a reader grep one partition across every log.
 */
public final class EventLine {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private EventLine() {}

  /**
   * The line: time, who (e.g. {@code node n4}, {@code coordinator}), partition, epoch, what.
   */
  public static String of(Clock clock, String who, int partition, long epoch, String what) {
    return time(clock) + " " + who + " partition " + partition + " epoch "
        + epoch + ": " + what;
  }

  /** The time as the lines give it, for a line about no one partition. */
  public static String time(Clock clock) {
    return TIME.format(clock.instant());
  }
}
