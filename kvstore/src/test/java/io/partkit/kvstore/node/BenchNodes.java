package io.partkit.kvstore.node;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.load.LoadMeters;
import io.partkit.replica.node.load.LoadMeters.Op;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/** Nodes for the benchmarks in {@code io.partkit.kvstore.bench}, which see only the public API. */
public final class BenchNodes {

  private BenchNodes() {}

  /**
   * A node on loopback owning partitions {@code 0..partitions-1} at epoch 1, with its meters
   * and hot-key sketch on a {@link SimpleMeterRegistry}, or with none at all.
   */
  public static KvNode startOwning(NodeId id, Path dir, int partitions, boolean metered)
      throws IOException {
    TcpKvNode node = TcpKvNode.start(id, dir, new InetSocketAddress("127.0.0.1", 0),
        UnsafeTestFault.NONE, ConnectionLimits.DEFAULT, null,
        metered ? new SimpleMeterRegistry() : null);
    try (TcpNodeClient c = new TcpNodeClient(node.address(), Duration.ofSeconds(10))) {
      for (int p = 0; p < partitions; p++) {
        KvReply reply = c.admin(Wire.ASSIGN, p, 1);
        if (!reply.isOk()) {
          node.close();
          throw new IOException("ASSIGN of partition " + p + " on " + id + ": " + reply);
        }
      }
    }
    return node;
  }

  /**
   * The CPU a served request spends in the meters and the hot-key sketch, in nanoseconds: one
   * thread counting {@code requests} gets of 16-byte values over 10,000 keys of one partition,
   * with nothing else in the way (no network, no log).
   */
  public static double meteringNanosPerRequest(int requests, long seed) {
    Map<Integer, NodePartition> parts = new ConcurrentHashMap<>();
    NodePartition part = new NodePartition(0);
    part.state = PartitionState.OWNED;
    parts.put(0, part);
    try (NodeMetrics metrics = NodeMetrics.on(NodeId.of("probe"), new SimpleMeterRegistry(),
        parts, LoadMeters.DEFAULT_HOT_KEY_WINDOW)) {
      byte[][] keys = new byte[10_000][];
      for (int i = 0; i < keys.length; i++) {
        keys[i] = ("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      }
      KvReply ok = KvReply.ok(1, new byte[16]);
      SplittableRandom random = new SplittableRandom(seed);
      long start = System.nanoTime();
      for (int i = 0; i < requests; i++) {
        byte[] key = keys[random.nextInt(keys.length)];
        metrics.served(part, Op.GET, key, key.length, ok, metrics.start());
      }
      return (System.nanoTime() - start) / (double) requests;
    }
  }
}
