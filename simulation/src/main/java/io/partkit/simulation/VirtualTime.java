package io.partkit.simulation;

import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * Virtual milliseconds and the one queue of what happens next: events ordered by time, then by
 * the order they were scheduled in, so that a run depends on nothing but its inputs.
 */
final class VirtualTime {

  /**
   * Events pending at most. More is a message storm (a loop of messages that copies of them
   * multiply, which only a planted bug has produced): the run stops with {@link Runaway} rather
   * than fill the heap.
   */
  static final int MAX_PENDING = 100_000;

  /** The run was stopped: more than {@link #MAX_PENDING} events were pending. */
  static final class Runaway extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Runaway(String message) {
      super(message, null, false, false);
    }
  }

  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  private long now;
  private long order;

  long now() {
    return now;
  }

  /** Runs {@code action} {@code delay} milliseconds from now. */
  void schedule(long delay, Runnable action) {
    queue.add(new Event(now + delay, order++, action));
  }

  /** Runs every event before {@code t}; the clock then reads {@code t}. */
  void runUntil(long t) {
    while (!queue.isEmpty() && queue.peek().time < t) {
      step();
    }
    now = Math.max(now, t);
  }

  /** Runs while {@code more} holds and before {@code limit}; false if the limit came first. */
  boolean runWhile(BooleanSupplier more, long limit) {
    while (more.getAsBoolean()) {
      if (queue.isEmpty() || queue.peek().time >= limit) {
        now = Math.max(now, limit);
        return false;
      }
      step();
    }
    return true;
  }

  private void step() {
    if (queue.size() > MAX_PENDING) {
      throw new Runaway("more than " + MAX_PENDING + " events pending at " + now
          + " ms of virtual time (a message storm)");
    }
    Event e = queue.poll();
    now = e.time;
    e.action.run();
  }

  /** An event: ordered by time, then by when it was scheduled. */
  private record Event(long time, long order, Runnable action) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int c = Long.compare(time, o.time);
      return c != 0 ? c : Long.compare(order, o.order);
    }
  }
}
