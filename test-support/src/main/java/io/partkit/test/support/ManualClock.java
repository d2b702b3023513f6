package io.partkit.test.support;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock that moves only when told: failure detection is tested without sleeping. Thread-safe. */
public final class ManualClock implements InstantSource {

  private volatile Instant now;

  /** A clock at {@code start}. */
  public ManualClock(Instant start) {
    this.now = start;
  }

  /** A clock at 2025-01-01T00:00:00Z. */
  public ManualClock() {
    this(Instant.parse("2025-01-01T00:00:00Z"));
  }

  @Override
  public Instant instant() {
    return now;
  }

  /**
   * Moves the clock forward.
   *
   * @throws IllegalArgumentException if {@code d} is negative
   */
  public synchronized void advance(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("a clock only moves forward: " + d);
    }
    now = now.plus(d);
  }
}
