package io.partkit.verification.checker;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * How to run a check.
 *
 * @param timeLimit when reached the verdict is unknown; {@link Duration#ZERO} or negative for none
 * @param memoryFraction the memory guard: when the heap still in use after the last collection
 *     passes this fraction of the maximum, the verdict is unknown (0 &lt; f &le; 1)
 * @param parallelism how many keys are checked at once (P-compositionality)
 * @param stopOnFirstInvalid stop checking the other keys once one key is invalid
 * @param nanoClock the clock for the time limit (injected so tests can drive it)
 * @param progress told about progress about once a second of searching, may be
 *     {@link Progress#NONE}
 */
public record CheckOptions(
    Duration timeLimit,
    double memoryFraction,
    int parallelism,
    boolean stopOnFirstInvalid,
    LongSupplier nanoClock,
    Progress progress) {

  /** Receives progress reports from a running check; must be thread-safe. */
  @FunctionalInterface
  public interface Progress {
    Progress NONE = (done, total, steps, elapsedNanos) -> { };

    /** {@code done} of {@code total} keys finished, {@code steps} search steps so far. */
    void report(int done, int total, long steps, long elapsedNanos);
  }

  public CheckOptions {
    Objects.requireNonNull(timeLimit, "timeLimit");
    Objects.requireNonNull(nanoClock, "nanoClock");
    Objects.requireNonNull(progress, "progress");
    if (!(memoryFraction > 0 && memoryFraction <= 1)) {
      throw new IllegalArgumentException("memoryFraction must be in (0, 1]: " + memoryFraction);
    }
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1: " + parallelism);
    }
  }

  /** No time limit, memory guard at 90%, one thread per core, stop on the first invalid key. */
  public static CheckOptions defaults() {
    return new CheckOptions(Duration.ZERO, 0.9, Runtime.getRuntime().availableProcessors(), true,
        System::nanoTime, Progress.NONE);
  }

  public CheckOptions withTimeLimit(Duration limit) {
    return new CheckOptions(
        limit, memoryFraction, parallelism, stopOnFirstInvalid, nanoClock, progress);
  }

  public CheckOptions withParallelism(int threads) {
    return new CheckOptions(
        timeLimit, memoryFraction, threads, stopOnFirstInvalid, nanoClock, progress);
  }

  public CheckOptions withMemoryFraction(double fraction) {
    return new CheckOptions(
        timeLimit, fraction, parallelism, stopOnFirstInvalid, nanoClock, progress);
  }

  public CheckOptions withStopOnFirstInvalid(boolean stop) {
    return new CheckOptions(timeLimit, memoryFraction, parallelism, stop, nanoClock, progress);
  }

  public CheckOptions withNanoClock(LongSupplier clock) {
    return new CheckOptions(
        timeLimit, memoryFraction, parallelism, stopOnFirstInvalid, clock, progress);
  }

  public CheckOptions withProgress(Progress listener) {
    return new CheckOptions(
        timeLimit, memoryFraction, parallelism, stopOnFirstInvalid, nanoClock, listener);
  }
}
