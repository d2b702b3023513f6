package io.partkit.simulation;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.List;

/** The history as it happens, each event stamped with the virtual time in nanoseconds. */
final class SimHistory {

  static final String NEMESIS = "nemesis";

  private final VirtualTime time;
  private final List<Op> ops = new ArrayList<>();

  SimHistory(VirtualTime time) {
    this.time = time;
  }

  Op client(long process, OpType type, String f, Object value, long key) {
    Op op = new Op(ops.size(), process, type, f, value, key, time.now() * 1_000_000L, 0);
    ops.add(op);
    return op;
  }

  void nemesis(OpType type, String f, String value) {
    ops.add(new Op(ops.size(), NEMESIS, type, f, value, null, time.now() * 1_000_000L, 0));
  }

  List<Op> ops() {
    return List.copyOf(ops);
  }
}
