package io.partkit.harness;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.List;

/**
 * The history as it happens: every event gets the next index and its time in nanoseconds since
 * the run started. One lock orders the events, so the history's order is a real-time order: an
 * invocation recorded after a completion really began after it ended.
 */
final class Recorder {

  static final String NEMESIS = "nemesis";

  private final long startNanos;
  private final List<Op> ops = new ArrayList<>();

  Recorder(long startNanos) {
    this.startNanos = startNanos;
  }

  /** Records a client event on register {@code key}. */
  synchronized Op client(long process, OpType type, String f, Object value, long key) {
    Op op = new Op(ops.size(), process, type, f, value, key, System.nanoTime() - startNanos, 0);
    ops.add(op);
    return op;
  }

  /** Records a nemesis event. */
  synchronized Op nemesis(OpType type, String f, Object value) {
    Op op = new Op(ops.size(), NEMESIS, type, f, value, null, System.nanoTime() - startNanos, 0);
    ops.add(op);
    return op;
  }

  synchronized List<Op> ops() {
    return List.copyOf(ops);
  }

  long elapsedNanos() {
    return System.nanoTime() - startNanos;
  }
}
