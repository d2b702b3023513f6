package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.load.LoadAnswer;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.ReceivedCopies;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.load.HotKey;
import io.partkit.replica.node.load.LoadMeters;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One node over TCP in this JVM: its meters on the registry it was given, its LOAD answer, and
 * meters following partitions in and out.
 */
class NodeMetricsTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static Timer timer(MeterRegistry registry, String partition, String op) {
    return registry.find(LoadMeters.PARTITION_REQUESTS)
        .tags("node", "n1", "partition", partition, "op", op).timer();
  }

  private static double bytes(MeterRegistry registry, String partition, String direction) {
    return registry.get(LoadMeters.PARTITION_BYTES)
        .tags("node", "n1", "partition", partition, "direction", direction).counter().count();
  }

  /** The received counters are metered as the node's RECEIVED answer counts them. */
  @Test
  void whatAMoveBroughtInIsMeteredAsTheReceivedAnswerCountsIt() throws IOException {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (KvNode source = KvNode.start(NodeId.of("n0"), dir.resolve("n0"), 0);
        KvNode target = KvNode.start(NodeId.of("n1"), dir.resolve("n1"), 0, registry);
        TcpNodeClient s = (TcpNodeClient) KvNodeClient.connect(source.hostAndPort(), TIMEOUT);
        TcpNodeClient t = (TcpNodeClient) KvNodeClient.connect(target.hostAndPort(), TIMEOUT)) {
      s.admin(Wire.ASSIGN, 0, 1);
      for (int i = 0; i < 10; i++) {
        assertThat(s.put(0, 1, b("k" + i), b("vvv")).isOk()).isTrue(); // 2 + 3 bytes each
      }
      assertThat(s.admin(Wire.FENCE, 0, 2).isOk()).isTrue();
      assertThat(t.receive(0, 2, source.hostAndPort()).isOk()).isTrue();
      assertThat(ReceivedCopies.read(t)).isEqualTo(new ReceivedCopies(10, 50, 1));
      assertThat(registry.get(NodeMetrics.NODE_RECEIVED_ENTRIES).tags("node", "n1")
          .functionCounter().count()).isEqualTo(10);
      assertThat(registry.get(NodeMetrics.NODE_RECEIVED_BYTES).tags("node", "n1")
          .functionCounter().count()).isEqualTo(50);
      assertThat(registry.get(NodeMetrics.NODE_RECEIVED_PARTITIONS).tags("node", "n1")
          .functionCounter().count()).isEqualTo(1);
    }
  }

  @Test
  void servedRequestsAreCountedPerPartitionAndPerNodeAndNothingElseIs() throws IOException {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0, registry);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      c.admin(Wire.ASSIGN, 0, 1);
      c.admin(Wire.ASSIGN, 1, 1);
      for (int i = 0; i < 5; i++) {
        assertThat(c.put(0, 1, b("k" + i), b("vvv")).isOk()).isTrue(); // 2 + 3 bytes in
      }
      for (int i = 0; i < 3; i++) {
        assertThat(c.get(0, 1, b("k" + i)).value()).isEqualTo(b("vvv")); // 2 in, 3 out
      }
      assertThat(c.get(0, 1, b("none")).value()).isNull(); // 4 in, 0 out
      assertThat(c.cas(1, 1, b("c"), null, b("x")).isOk()).isTrue(); // 1 + 0 + 1 in
      KvReply failed = c.cas(1, 1, b("c"), null, b("y")); // 2 in, 1 out (the current "x")
      assertThat(failed.status()).isEqualTo(Status.CAS_FAILED);
      // not served: a partition the node does not own, and a stale epoch
      assertThat(c.put(2, 1, b("k"), b("v")).status()).isEqualTo(Status.REDIRECT);
      assertThat(c.put(0, 0, b("k"), b("v")).status()).isEqualTo(Status.REDIRECT);

      assertThat(timer(registry, "0", "put").count()).isEqualTo(5);
      assertThat(timer(registry, "0", "get").count()).isEqualTo(4);
      assertThat(timer(registry, "0", "cas").count()).isZero();
      assertThat(timer(registry, "1", "cas").count()).isEqualTo(2);
      assertThat(timer(registry, "0", "put").totalTime(java.util.concurrent.TimeUnit.NANOSECONDS))
          .as("latency is measured").isPositive();
      assertThat(bytes(registry, "0", "in")).isEqualTo(5 * 5 + 3 * 2 + 4);
      assertThat(bytes(registry, "0", "out")).isEqualTo(3 * 3);
      assertThat(bytes(registry, "1", "in")).isEqualTo(2 + 2);
      assertThat(bytes(registry, "1", "out")).isEqualTo(1);
      assertThat(registry.get(LoadMeters.PARTITION_KEYS).tags("partition", "0").gauge().value())
          .isEqualTo(5);
      assertThat(registry.find(LoadMeters.PARTITION_REQUESTS).tag("partition", "2").meters())
          .as("no meters for a partition the node does not serve").isEmpty();
      assertThat(registry.get(LoadMeters.NODE_REQUESTS).tags("node", "n1", "op", "put").timer()
          .count()).isEqualTo(5);
      assertThat(registry.get(LoadMeters.NODE_REQUESTS).tags("op", "cas").timer().count())
          .isEqualTo(2);
      assertThat(registry.get(LoadMeters.NODE_KEYS).gauge().value()).isEqualTo(6);
      assertThat(registry.get(LoadMeters.NODE_PARTITIONS).gauge().value()).isEqualTo(2);

      NodeLoad wire = LoadAnswer.read(c);
      assertThat(wire.node()).isEqualTo(NodeId.of("n1"));
      assertThat(wire.partitions()).extracting(PartitionLoad::partition).containsExactly(0, 1);
      PartitionLoad p0 = wire.partition(0).orElseThrow();
      assertThat(p0.state()).isEqualTo(PartitionState.OWNED.name());
      assertThat(p0.epoch()).isEqualTo(1);
      assertThat(p0.keys()).isEqualTo(5);
      assertThat(p0.gets()).isEqualTo(4);
      assertThat(p0.puts()).isEqualTo(5);
      assertThat(p0.compareAndSets()).isZero();
      assertThat(p0.bytesIn()).isEqualTo(35);
      assertThat(p0.bytesOut()).isEqualTo(9);
      assertThat(p0.measuredNanos()).isPositive();
      assertThat(p0.latencyTotalNanos()).isPositive();
      assertThat(p0.latencyMaxNanos()).isPositive().isLessThanOrEqualTo(p0.latencyTotalNanos());
      assertThat(p0.opsPerSecond()).isPositive();
      assertThat(wire.partition(1).orElseThrow().compareAndSets()).isEqualTo(2);
      assertThat(wire.hotKeyRequests()).as("every served request is in the sketch")
          .isEqualTo(11);
      NodeLoad local = node.load();
      assertThat(local.partitions()).extracting(PartitionLoad::ops).containsExactly(9L, 2L);
      assertThat(local.hottestKeys()).isEqualTo(wire.hottestKeys());
    }
  }

  @Test
  void metersLeaveWithTheirPartitionAndTheNode() throws IOException {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0, registry);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      c.admin(Wire.ASSIGN, 0, 1);
      c.admin(Wire.ASSIGN, 1, 1);
      c.put(0, 1, b("a"), b("1"));
      c.put(1, 1, b("b"), b("2"));
      assertThat(c.admin(Wire.FENCE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(timer(registry, "0", "put")).as("a fenced partition may come back: kept")
          .isNotNull();
      assertThat(LoadAnswer.read(c).partition(0).orElseThrow().state())
          .isEqualTo(PartitionState.MIGRATING_OUT.name());
      assertThat(c.admin(Wire.DROP, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(registry.find(LoadMeters.PARTITION_REQUESTS).tag("partition", "0").meters())
          .as("the dropped partition's meters are gone").isEmpty();
      assertThat(registry.find(LoadMeters.PARTITION_KEYS).tag("partition", "0").meters())
          .isEmpty();
      assertThat(LoadAnswer.read(c).partitions()).extracting(PartitionLoad::partition)
          .containsExactly(1);
      assertThat(timer(registry, "1", "put").count()).isEqualTo(1);
      assertThat(registry.get(LoadMeters.NODE_REQUESTS).tags("op", "put").timer().count())
          .as("the node's own meters keep what the dropped partition served").isEqualTo(2);
      // a move rolled back (fence, then unfence) keeps the partition's counts
      assertThat(c.admin(Wire.FENCE, 1, 2).status()).isEqualTo(Status.OK);
      assertThat(c.admin(Wire.UNFENCE, 1, 2).status()).isEqualTo(Status.OK);
      assertThat(c.put(1, 1, b("b"), b("3")).isOk()).isTrue();
      assertThat(timer(registry, "1", "put").count()).isEqualTo(2);
    }
    assertThat(registry.getMeters()).as("a closed node leaves no meter behind").isEmpty();
  }

  @Test
  void withMetricsOffTheViewHasKeyCountsOnly() throws IOException {
    try (KvNode node = TcpKvNode.start(NodeId.of("n1"), dir,
        new InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE, ConnectionLimits.DEFAULT,
        null, null);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      c.admin(Wire.ASSIGN, 0, 1);
      c.put(0, 1, b("a"), b("1"));
      NodeLoad view = LoadAnswer.read(c);
      assertThat(view.partition(0).orElseThrow().keys()).isEqualTo(1);
      assertThat(view.partition(0).orElseThrow().ops()).isZero();
      assertThat(view.hotKeyRequests()).isZero();
    }
  }

  @Test
  void eachPartitionReportsItsMedianKeyAsItsSplitKey() throws IOException {
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0, new SimpleMeterRegistry());
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      c.admin(Wire.ASSIGN, 0, 1);
      c.admin(Wire.ASSIGN, 1, 1);
      c.admin(Wire.ASSIGN, 2, 1);
      c.admin(Wire.ASSIGN, 3, 1);
      for (int i = 8; i >= 0; i--) { // written out of order: the median is by key order
        c.put(0, 1, b("k" + i), b("v"));
      }
      c.put(2, 1, b("only"), b("v"));
      // more keys than one locked chunk of the walk: it must go on where the chunk stopped
      int many = 2 * NodeMetrics.MEDIAN_CHUNK + 7;
      for (int i = 0; i < many; i++) {
        c.put(3, 1, b(String.format(java.util.Locale.ROOT, "m%06d", i)), b("v"));
      }
      for (NodeLoad view : java.util.List.of(LoadAnswer.read(c), node.load())) {
        assertThat(view.partition(0).orElseThrow().splitKey()).as("index 9 / 2 of k0..k8")
            .isEqualTo(b("k4"));
        assertThat(view.partition(1).orElseThrow().splitKey()).as("no key, no split key")
            .isNull();
        assertThat(view.partition(2).orElseThrow().splitKey()).isEqualTo(b("only"));
        assertThat(view.partition(3).orElseThrow().splitKey())
            .isEqualTo(b(String.format(java.util.Locale.ROOT, "m%06d", many / 2)));
      }
      // the split key is a copy: changing it changes no view
      PartitionLoad p0 = LoadAnswer.read(c).partition(0).orElseThrow();
      p0.splitKey()[0] = 'x';
      assertThat(p0.splitKey()).isEqualTo(b("k4"));
    }
  }

  @Test
  void anAnswerWithoutSplitKeysFromAnOlderNodeStillReads() throws IOException {
    NodeLoad view = new NodeLoad(NodeId.of("n1"), java.util.List.of(new PartitionLoad(3,
        PartitionState.OWNED.name(), 2, 10, 5, 1, 2, 3, 4, 5, 6, 7, b("k5"))), 9, 1,
        java.util.List.of());
    byte[] body = LoadAnswer.reply(view).value();
    // an older node's answer ends after the hot keys: without int32 1, int32 2, "k5"
    byte[] old = java.util.Arrays.copyOf(body, body.length - 4 - 4 - 2);
    NodeLoad read = LoadAnswer.of(KvReply.ok(0, old));
    assertThat(read.partition(3).orElseThrow().splitKey()).isNull();
    assertThat(read.partition(3).orElseThrow().keys()).isEqualTo(10);
    assertThat(read.partition(3).orElseThrow()).isEqualTo(new PartitionLoad(3,
        PartitionState.OWNED.name(), 2, 10, 5, 1, 2, 3, 4, 5, 6, 7));
    assertThat(LoadAnswer.of(KvReply.ok(0, body))).isEqualTo(view);
  }

  @Test
  void aLoadAnswerCutShortIsAnIoErrorNotAGarbledView() {
    NodeLoad view = new NodeLoad(NodeId.of("n1"), java.util.List.of(new PartitionLoad(3,
        PartitionState.OWNED.name(), 2, 10, 5, 1, 2, 3, 4, 5, 6, 7, b("k5"))), 9, 1,
        java.util.List.of(new HotKey(3, b("k"), false, 8, 7, 9)));
    KvReply reply = LoadAnswer.reply(view);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> LoadAnswer.of(reply)))
        .isNull();
    try {
      assertThat(LoadAnswer.of(reply)).isEqualTo(view);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    byte[] cut = java.util.Arrays.copyOf(reply.value(), reply.value().length - 3);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(
        () -> LoadAnswer.of(KvReply.ok(0, cut)))).isInstanceOf(IOException.class)
        .hasMessageContaining("truncated frame");
  }
}
