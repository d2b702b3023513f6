package io.partkit.simulation;

import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * Virtual milliseconds and the one queue of what happens next: events ordered by time, then by
 * the order they were scheduled in, so that a run depends on nothing but its inputs.
 */
final class VirtualTime {

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
