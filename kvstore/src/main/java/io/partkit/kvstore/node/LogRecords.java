package io.partkit.kvstore.node;

import io.partkit.kvstore.wire.Wire;

/**
 * The records of a node's write-ahead log: their type codes (the int8 each record starts with,
 * then the partition as int32) and their encoders, but for the split's, which stay with the
 * split code. {@link TcpKvNode} replays them, so a new type needs a case there too.
 */
final class LogRecords {

  static final byte LOG_PUT = 1;
  static final byte LOG_STATE = 2;
  static final byte LOG_CLEAR = 3;
  /** A replicated write: its sequence number, then key and value. */
  static final byte LOG_RPUT = 4;
  /** A replica's configuration: last write (seq, key, value), catching up, backups. */
  static final byte LOG_REPLICA = 5;
  /** A split prepared: its epoch, the new scheme, the new partitions this node owns. */
  static final byte LOG_SPLIT_PREPARE = 6;
  /** The prepared split applied: every key renumbered into the new scheme (one record). */
  static final byte LOG_SPLIT_APPLY = 7;
  /** The prepared split abandoned: the old numbering serves again. */
  static final byte LOG_SPLIT_ABORT = 8;

  private LogRecords() {}

  static byte[] stateRecord(NodePartition part) {
    return new Wire.Writer().i8(LOG_STATE).i32(part.id).i8(part.state.code()).i64(part.epoch)
        .i64(part.moveEpoch).i64(part.unfencedEpoch).toBytes();
  }

  static byte[] putRecord(int partition, byte[] key, byte[] value) {
    return new Wire.Writer().i8(LOG_PUT).i32(partition).bytes(key).bytes(value).toBytes();
  }

  static byte[] replicatedPutRecord(int partition, long seq, byte[] key, byte[] value) {
    return new Wire.Writer().i8(LOG_RPUT).i32(partition).i64(seq).bytes(key).bytes(value)
        .toBytes();
  }

  static byte[] replicaRecord(NodePartition part) {
    Wire.Writer w = new Wire.Writer().i8(LOG_REPLICA).i32(part.id).i64(part.seq)
        .bytes(part.lastKey).bytes(part.lastValue).i8(part.catchingUp || part.catchupLost ? 1 : 0)
        .i32(part.backups.size());
    part.backups.forEach(w::utf);
    return w.toBytes();
  }

  static byte[] clearRecord(int partition) {
    return new Wire.Writer().i8(LOG_CLEAR).i32(partition).toBytes();
  }
}
