package io.partkit.replica;

/**
 * What a driver needs of the protocol's state machines ({@link Replica}, {@link Control}): a
 * message in, the clock in, and what to do. One thread at a time; nothing inside acts.
 */
public interface StateMachine {

  /** Handles one message. */
  void step(Envelope e);

  /** The clock moved to {@code nowMillis}. */
  void tick(long nowMillis);

  /** What to make durable, then send, since the last call. */
  Ready ready();
}
