package io.partkit.harness.system;

/**
 * A client of the system under test, used by one worker thread at a time. The harness records
 * the invocation before calling {@link #invoke} and the returned {@link Outcome} after it.
 */
public interface Client extends AutoCloseable {

  /**
   * Performs {@code op} against the system. Never throws for a failure of the system: a refused
   * operation is {@code fail}, one whose effect is unknown is {@code info} (see {@link Outcome}).
   * An exception it throws anyway is recorded as {@code info}.
   */
  Outcome invoke(Operation op);

  @Override
  void close();
}
