package io.partkit.kvstore.migration;

import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.SchemeCodec;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The migration side of a split (a scheme change): PREPARE on every node that may hold data
 * before the split table is committed, then APPLY or ABORT on each, decided by the committed
 * table. {@link KvMigrationExecutor} runs both on its reconciler thread and says which nodes to
 * ask (the committed table's, the split's, those of the migrations it handles, the wiring's).
 */
final class SplitProtocol {

  private final NodeCalls calls;

  SplitProtocol(NodeCalls calls) {
    this.calls = calls;
  }

  /**
   * Fences, on every node of {@code nodes}, the partitions {@code split} renumbers, after
   * settling a split some predecessor left pending. On any refusal the nodes already prepared
   * are released (ABORT) and it throws.
   *
   * @param settleOn the nodes to settle an earlier split on first
   */
  void prepare(PartitionAssignment committed, PartitionAssignment split,
      Collection<NodeId> settleOn, Collection<NodeId> nodes) {
    if (split.epoch() <= committed.epoch()) {
      throw new IllegalArgumentException("a split table must be newer than the committed one: "
          + split.epoch() + " <= " + committed.epoch());
    }
    List<String> problems = new ArrayList<>();
    settle(committed, settleOn, problems);
    if (!problems.isEmpty()) {
      throw new IllegalStateException("cannot prepare the split for epoch " + split.epoch()
          + ": an earlier split is not settled: " + String.join("; ", problems));
    }
    byte[] scheme = SchemeCodec.encode(split.scheme());
    List<NodeId> prepared = new ArrayList<>();
    try {
      for (NodeId node : nodes) {
        byte[] request = SplitRequests.prepare(split.epoch(), scheme,
            split.primaryPartitionsOf(node));
        KvReply r = calls.call(node, "SPLIT PREPARE", c -> c.call(request),
            true); // the node reads every key it holds: a copy's timeout
        NodeCalls.expectOk(r);
        prepared.add(node);
      }
    } catch (RuntimeException e) {
      for (NodeId node : prepared) {
        phase(node, Wire.SPLIT_ABORT, split.epoch()); // best effort: activate retries
      }
      throw e;
    }
  }

  /**
   * Decides every split a node of {@code nodes} holds pending by the committed table: applied
   * when the table is at or past its epoch with its scheme (the split was committed; later
   * tables keep the scheme until the next split, which is prepared only once this one is
   * settled), aborted otherwise. What fails is added to {@code problems}.
   */
  void settle(PartitionAssignment committed, Collection<NodeId> nodes, List<String> problems) {
    for (NodeId node : nodes) {
      KvReply q = phase(node, Wire.SPLIT_QUERY, 0);
      if (q == null || !q.isOk()) {
        if (committed.nodes().contains(node)) {
          problems.add(node + " did not say whether it holds a split: " + q);
        }
        continue;
      }
      SplitRequests.Pending pending;
      try {
        pending = SplitRequests.readPending(q.value());
      } catch (IOException e) {
        problems.add(node + " answered an unreadable split: " + e.getMessage());
        continue;
      }
      if (pending == null) {
        continue;
      }
      long epoch = pending.epoch();
      boolean committedSplit = committed.epoch() >= epoch
          && committed.scheme().equals(pending.scheme());
      int phase = committedSplit ? Wire.SPLIT_APPLY : Wire.SPLIT_ABORT;
      KvReply r = phase(node, phase, epoch);
      if (r == null || !r.isOk()) {
        problems.add((committedSplit ? "APPLY" : "ABORT") + " of the split for epoch " + epoch
            + " on " + node + " failed: " + r);
      }
    }
  }

  /** One SPLIT phase without a body, or null when the node could not be reached. */
  private KvReply phase(NodeId node, int phase, long epoch) {
    // APPLY renumbers every key the node holds: a copy's timeout; the others are quick
    return calls.tryRequest(node, SplitRequests.phase(phase, epoch),
        phase == Wire.SPLIT_APPLY);
  }
}
