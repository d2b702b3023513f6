package io.partkit.replica;

import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Message.Pong;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * The nodes a control test stands in for, without replicas: what each holds (partition to
 * epoch), which are down, and what they have sent the control since its last step. Test
 * clusters extend it with how their nodes answer configurations.
 */
class FakeNodes {

  final TreeMap<Integer, TreeMap<Integer, Long>> held = new TreeMap<>();
  final TreeSet<Integer> down = new TreeSet<>();
  final List<Envelope> toControl = new ArrayList<>();

  /**
   * The control's inputs of one step: what the nodes that are up sent it, then a heartbeat
   * answer from each of them holding what it holds.
   */
  void deliver(Control c) {
    List<Envelope> in = new ArrayList<>(toControl);
    toControl.clear();
    for (Envelope e : in) {
      if (!down.contains(e.from())) {
        c.step(e);
      }
    }
    held.forEach((n, h) -> {
      if (!down.contains(n)) {
        c.step(new Envelope(n, Control.ID, new Pong(0, h)));
      }
    });
  }

  /**
   * Node {@code to}, unless down or unknown, receives {@code cf}: a member holds the partition at
   * its epoch (and, as the primary of an epoch new to it, reports it level when {@code reports}
   * says so), any other node drops it.
   */
  void configure(int to, Configure cf, BooleanSupplier reports) {
    TreeMap<Integer, Long> h = held.get(to);
    if (h == null || down.contains(to)) {
      return;
    }
    if (!cf.members().contains(to)) {
      h.remove(cf.partition());
    } else if (h.getOrDefault(cf.partition(), 0L) < cf.epoch()) {
      h.put(cf.partition(), cf.epoch());
      if (cf.primary() == to && reports.getAsBoolean()) {
        toControl.add(new Envelope(to, Control.ID, new Levelled(cf.partition(), cf.epoch())));
      }
    }
  }
}
