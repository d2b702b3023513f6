package io.partkit.bench;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code partkit bench --live} measured on running clusters: one {@link LiveRow} per subject
 * and event, one {@link LiveSeries} per subject, and how the clusters were set up. Empty for a run
 * without {@code --live}.
 *
 * @param rows subject x event, in run order
 * @param series per subject, the clients' throughput and p99 second by second, events marked
 * @param setup how the clusters ran (nodes, copies, keys, load), for the report's table
 */
public record LiveResult(List<LiveRow> rows, List<LiveSeries> series, Map<String, String> setup) {

  public LiveResult {
    rows = List.copyOf(requireNonNull(rows, "rows"));
    series = List.copyOf(requireNonNull(series, "series"));
    setup = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(setup, "setup")));
  }

  /** No live measurement. */
  public static LiveResult none() {
    return new LiveResult(List.of(), List.of(), Map.of());
  }

  /** Whether nothing was measured live (a run without {@code --live}). */
  public boolean isEmpty() {
    return rows.isEmpty();
  }

  /** Rows that could not be measured, each with its reason in {@link LiveRow#note()}. */
  public List<LiveRow> unmeasured() {
    return rows.stream().filter(r -> !r.measured()).toList();
  }

  /**
   * One event on one subject. Shares are of all copies ({@code keys x copies}); a figure that
   * could not be measured is {@code NaN} (or -1 for counts) and {@link #note} says why.
   *
   * @param system kv, ignite or hazelcast
   * @param placement the placement it ran: a partkit strategy, or {@code native}
   * @param event join, leave or kill
   * @param keys keys stored before the event
   * @param copies copies of each key the system keeps
   * @param predictedMovedShare the share of copies the placement algorithm says must be created
   *     on a node that did not hold them (the offline bench's computation)
   * @param measuredMovedShare the share of copies the system's nodes received, by their counters
   * @param bytesMoved bytes received, as the system counts them
   * @param partitionsMoved partition copies received
   * @param rebalanceMs from the event until the system said its rebalance was complete
   * @param steady the clients in the steady state just before the event
   * @param during the clients from the event until the rebalance completed
   * @param measured whether the event could be run and measured
   * @param note why it was not measured, or what explains a difference from the prediction
   */
  public record LiveRow(String system, String placement, String event, long keys, int copies,
      double predictedMovedShare, double measuredMovedShare, long bytesMoved,
      long partitionsMoved, long rebalanceMs, ClientFigures steady, ClientFigures during,
      boolean measured, String note) {

    public LiveRow {
      requireNonNull(system, "system");
      requireNonNull(placement, "placement");
      requireNonNull(event, "event");
      requireNonNull(steady, "steady");
      requireNonNull(during, "during");
      requireNonNull(note, "note");
    }

    /** A row that could not be measured, with the prediction where there is one. */
    public static LiveRow notMeasured(String system, String placement, String event, long keys,
        int copies, double predicted, String why) {
      return new LiveRow(system, placement, event, keys, copies, predicted, Double.NaN, -1, -1,
          -1, ClientFigures.NONE, ClientFigures.NONE, false, why);
    }

    /** {@code system/placement}, the subject's label in the report. */
    public String subject() {
      return system + "/" + placement;
    }

    /** Measured over predicted; {@code NaN} when either is missing or the prediction is 0. */
    public double ratio() {
      return predictedMovedShare > 0 ? measuredMovedShare / predictedMovedShare : Double.NaN;
    }
  }

  /**
   * What the clients saw over a window: completed operations per second, latency percentiles
   * (from each operation's intended start, so a stall counts for every operation it delayed) and
   * failed operations.
   */
  public record ClientFigures(double seconds, double opsPerSecond, double p50Ms, double p99Ms,
      double maxMs, long errors) {

    /** Nothing measured. */
    public static final ClientFigures NONE =
        new ClientFigures(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, -1);
  }

  /**
   * One subject's clients second by second, with its events marked.
   *
   * @param opsPerSecond completed operations in each second since the load started
   * @param p99Ms the 99th percentile latency of the operations started in that second
   * @param errors failed operations in that second
   * @param marks events (their start) and rebalance ends, by second
   */
  public record LiveSeries(String system, String placement, double[] opsPerSecond,
      double[] p99Ms, long[] errors, List<Mark> marks) {

    public LiveSeries {
      opsPerSecond = opsPerSecond.clone();
      p99Ms = p99Ms.clone();
      errors = errors.clone();
      marks = List.copyOf(marks);
      if (p99Ms.length != opsPerSecond.length || errors.length != opsPerSecond.length) {
        throw new IllegalArgumentException("series of different lengths: " + opsPerSecond.length
            + ", " + p99Ms.length + ", " + errors.length);
      }
    }

    public String subject() {
      return system + "/" + placement;
    }

    @Override
    public double[] opsPerSecond() {
      return opsPerSecond.clone();
    }

    @Override
    public double[] p99Ms() {
      return p99Ms.clone();
    }

    @Override
    public long[] errors() {
      return errors.clone();
    }
  }

  /** A moment on a series: an event's start or its rebalance's end, {@code second} fractional. */
  public record Mark(double second, String label) {}
}
