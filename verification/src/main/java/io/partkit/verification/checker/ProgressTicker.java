package io.partkit.verification.checker;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Reports progress from any checking thread, at most about once a second. */
final class ProgressTicker {
  private final CheckOptions options;
  private final long start;
  private final AtomicInteger done;
  private final int total;
  private final AtomicLong steps;
  private long lastReport;

  ProgressTicker(
      CheckOptions options, long start, AtomicInteger done, int total, AtomicLong steps) {
    this.options = options;
    this.start = start;
    this.done = done;
    this.total = total;
    this.steps = steps;
    this.lastReport = start;
  }

  synchronized void maybeReport() {
    if (options.progress() == CheckOptions.Progress.NONE) {
      return;
    }
    long now = options.nanoClock().getAsLong();
    if (now - lastReport >= 1_000_000_000L) {
      lastReport = now;
      options.progress().report(done.get(), total, steps.get(), now - start);
    }
  }
}
