package io.partkit.kvstore.node;

import io.partkit.kvstore.EventLine;
import io.partkit.spi.NodeId;
import java.time.Clock;
import java.util.function.Consumer;

/**
 * The node's event lines ({@link EventLine}): one per configuration change of a partition, per
 * backup named a suspect or cleared, per shrink offered, adopted or refused, per move that timed
 * out. Never one per request: a line costs a write to standard error, and a stall is diagnosed
 * from the changes, not from the traffic. {@code KvNodeMain} sends them to standard error, which
 * the harness keeps in the node's log.
 */
final class NodeEvents {

  private final String who;
  private final Consumer<String> out;

  NodeEvents(NodeId node, Consumer<String> out) {
    this.who = "node " + node;
    this.out = out;
  }

  /** One event of {@code part}, at its epoch now. */
  void say(NodePartition part, String what) {
    say(part.id, part.epoch, what);
  }

  void say(int partition, long epoch, String what) {
    out.accept(EventLine.of(Clock.systemUTC(), who, partition, epoch, what));
  }
}
