package io.partkit.kvstore.load;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.load.HotKey;
import io.partkit.replica.node.load.HotKeys;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A kvstore node's {@code LOAD} answer: a {@link NodeLoad} in the kvstore's wire form. Encoded
 * and decoded here only (like the STATUS answer in {@code NodeStatus}), so the node and its
 * readers cannot drift apart. A partition's state travels as its {@link PartitionState} code.
 */
public final class LoadAnswer {

  private LoadAnswer() {}

  /** The node's answer to LOAD: its body is the whole {@code view}. */
  public static KvReply reply(NodeLoad view) {
    NodeId node = view.node();
    List<PartitionLoad> partitions = view.partitions();
    List<HotKey> hottestKeys = view.hottestKeys();
    Wire.Writer w = new Wire.Writer().utf(node.value()).i32(partitions.size());
    for (PartitionLoad p : partitions) {
      w.i32(p.partition()).i8(PartitionState.valueOf(p.state()).code()).i64(p.epoch()).i64(p.keys())
          .i64(p.measuredNanos()).i64(p.gets()).i64(p.puts()).i64(p.compareAndSets())
          .i64(p.bytesIn()).i64(p.bytesOut()).i64(p.latencyTotalNanos())
          .i64(p.latencyMaxNanos());
    }
    w.i64(view.hotKeyRequests()).i64(view.hotKeyMaximumError()).i32(hottestKeys.size());
    for (HotKey k : hottestKeys) {
      w.i32(k.partition()).bytes(k.key()).i8(k.truncated() ? 1 : 0).i64(k.estimate())
          .i64(k.lowerBound()).i64(k.upperBound());
    }
    // Added after everything else, so a reader that stops after the hot keys (an older one)
    // still reads every field it knows: one split key per partition, in the same order.
    w.i32(partitions.size());
    for (PartitionLoad p : partitions) {
      w.bytes(p.splitKey());
    }
    return KvReply.ok(0, w.toBytes());
  }

  /**
   * Asks {@code node} for its load view (LOAD).
   *
   * @throws IOException if the node could not be reached, did not answer in time, refused, or
   *     sent a malformed answer
   */
  public static NodeLoad read(TcpNodeClient node) throws IOException {
    KvReply reply = node.admin(Wire.LOAD, 0, 0);
    if (!reply.isOk()) {
      throw new IOException("LOAD at " + node.address() + ": " + reply);
    }
    return of(reply);
  }

  /**
   * Reads an OK answer to LOAD.
   *
   * @throws IOException if its body is cut short or malformed
   */
  public static NodeLoad of(KvReply ok) throws IOException {
    if (ok.value() == null) {
      throw new IOException("LOAD answer without a body");
    }
    Wire.Reader r = new Wire.Reader(ok.value());
    String node = r.utf();
    int n = count(r.i32(), "partitions");
    List<PartitionLoad> partitions = new ArrayList<>(Math.min(n, 1 << 16));
    for (int i = 0; i < n; i++) {
      int partition = r.i32();
      String state = PartitionState.ofCode(r.i8()).name();
      partitions.add(new PartitionLoad(partition, state, r.i64(), r.i64(), r.i64(), r.i64(),
          r.i64(), r.i64(), r.i64(), r.i64(), r.i64(), r.i64()));
    }
    long requests = r.i64();
    long maximumError = r.i64();
    int h = count(r.i32(), "hot keys");
    List<HotKey> hot = new ArrayList<>(Math.min(h, HotKeys.MAX_REPORTED));
    for (int i = 0; i < h; i++) {
      int partition = r.i32();
      byte[] key = r.bytes();
      if (key == null) {
        throw new IOException("LOAD answer: hot key " + i + " has no bytes");
      }
      boolean truncated = r.i8() != 0;
      hot.add(new HotKey(partition, key, truncated, r.i64(), r.i64(), r.i64()));
    }
    if (!r.atEnd()) { // an older node ends here: its partitions have no split key
      int k = count(r.i32(), "split keys");
      if (k != n) {
        throw new IOException("LOAD answer: " + k + " split keys for " + n + " partitions");
      }
      for (int i = 0; i < n; i++) {
        partitions.set(i, partitions.get(i).withSplitKey(r.bytes()));
      }
    }
    if (node == null) {
      throw new IOException("LOAD answer without the node's id");
    }
    return new NodeLoad(NodeId.of(node), partitions, requests, maximumError, hot);
  }

  private static int count(int n, String what) throws IOException {
    if (n < 0) {
      throw new IOException("LOAD answer: negative count of " + what + ": " + n);
    }
    return n;
  }
}
