package io.partkit.kvstore.wire;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import java.io.IOException;

/**
 * A STATUS answer as the wire carries it: one node's partition, with what a replica change needs
 * besides the {@link PartitionStatus} a client sees (the sequence number of the last replicated
 * write, and whether a joining backup is still catching up). Encoded and decoded here only, so
 * the node and its two readers (the executor's client, its {@code ReplicaAdmin}) cannot drift
 * apart.
 *
 * @param state where the partition stands on the node
 * @param epoch the epoch the node holds it under (see {@link PartitionStatus#epoch})
 * @param keys number of keys held
 * @param seq the sequence number of the last replicated write it holds
 * @param catchingUp a backup that joined and has not copied everything yet
 * @param mustRejoin a backup that cannot catch up by itself (it lost acknowledged records with
 *     its log, or restarted while catching up): it serves nothing until a primary joins it again,
 *     which the coordinator does when it reads this (see {@code KvMigrationExecutor#lostReplicas})
 */
public record NodeStatus(PartitionState state, long epoch, long keys, long seq, boolean catchingUp,
    boolean mustRejoin) {

  /** The node's answer: the epoch in the reply's header, the rest in its body. */
  public KvReply reply() {
    return KvReply.ok(epoch, new Wire.Writer().i8(state.code()).i64(keys).i64(seq)
        .i8(catchingUp ? 1 : 0).i8(mustRejoin ? 1 : 0).toBytes());
  }

  /**
   * Reads an OK answer to STATUS.
   *
   * @throws IOException if its body is cut short
   */
  public static NodeStatus of(KvReply ok) throws IOException {
    Wire.Reader r = new Wire.Reader(ok.value());
    PartitionState state = PartitionState.ofCode(r.i8());
    long keys = r.i64();
    long seq = r.i64();
    boolean catchingUp = r.i8() != 0;
    return new NodeStatus(state, ok.epoch(), keys, seq, catchingUp, r.i8() != 0);
  }

  /** What a client sees of it. */
  PartitionStatus toPartitionStatus(int partition) {
    return new PartitionStatus(partition, state, epoch, keys);
  }
}
