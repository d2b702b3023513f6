package io.partkit.kvstore.node;

import static io.partkit.kvstore.KvLimits.MAX_KEY_BYTES;
import static io.partkit.kvstore.KvLimits.MAX_VALUE_BYTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.kvstore.migration.ReplicaAdmin;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The largest key and value ({@link io.partkit.kvstore.KvLimits}) fit every frame and record
 * that carries them, on a replicated partition, through a {@code kill -9} and restarts; one byte
 * more is refused before anything is sent. Before the limits, a 1-byte key and a
 * 67,108,834-byte value with one backup was acknowledged, and the next GET was UNAVAILABLE: the
 * backup's CONFIRM answer carrying it was over the frame limit.
 */
class SizeLimitsTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final int P = 0;
  /** A node's heap in these tests: enough for a few copies of the largest value. */
  private static final String HEAP = "-Xmx256m";

  @TempDir Path dir;
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void stopNodes() throws InterruptedException {
    for (Process p : processes) {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void everyFrameAndRecordCarryingTheLargestKeyAndValuesFits() {
    byte[] key = new byte[MAX_KEY_BYTES];
    byte[] value = new byte[MAX_VALUE_BYTES];
    String address = "a".repeat(253) + ":65535"; // the longest host name
    List<byte[]> carriers = new ArrayList<>();
    carriers.add(NodeConnection.request(Wire.PUT, Integer.MAX_VALUE, Long.MAX_VALUE).bytes(key)
        .bytes(value).toBytes());
    carriers.add(NodeConnection.request(Wire.CAS, Integer.MAX_VALUE, Long.MAX_VALUE).bytes(key)
        .bytes(value).bytes(value).toBytes());
    carriers.add(NodeConnection.request(Wire.REPLICATE, Integer.MAX_VALUE, Long.MAX_VALUE)
        .i64(Long.MAX_VALUE).bytes(key).bytes(value).toBytes());
    carriers.add(NodeConnection.encode(KvReply.ok(Long.MAX_VALUE, new Wire.Writer()
        .i64(Long.MAX_VALUE).bytes(key).bytes(value).i8(1).toBytes()))); // CONFIRM's answer
    carriers.add(NodeConnection.encode(new KvReply(Status.CAS_FAILED, Long.MAX_VALUE, value,
        "value differs")));
    carriers.add(NodeConnection.encode(KvReply.ok(Long.MAX_VALUE, value))); // GET's answer
    carriers.add(LogRecords.putRecord(Integer.MAX_VALUE, key, value));
    carriers.add(LogRecords.replicatedPutRecord(Integer.MAX_VALUE, Long.MAX_VALUE, key, value));
    NodePartition part = new NodePartition(Integer.MAX_VALUE);
    part.lastKey = key;
    part.lastValue = value;
    part.backups = List.of(address, address, address, address, address, address, address);
    carriers.add(LogRecords.replicaRecord(part)); // written by every compaction too
    // a copy page: entries up to its byte budget, then the largest entry
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < NodeMigration.PAGE_BYTES / 1024 - 1; i++) {
      keys.add(new byte[] {(byte) (i >> 8), (byte) i});
    }
    keys.add(key);
    byte[] small = new byte[1022];
    carriers.add(NodeConnection.encode(KvReply.ok(Long.MAX_VALUE, NodeMigration.page(keys,
        k -> k == key ? value : small, keys.size() + 1, Integer.MAX_VALUE))));
    for (byte[] frame : carriers) {
      assertThat(frame.length).isLessThanOrEqualTo(Wire.MAX_FRAME);
    }
    assertThat(carriers.get(carriers.size() - 1).length).as("the page took the largest entry")
        .isGreaterThan(MAX_VALUE_BYTES);
  }

  @Test
  void theLargestKeyAndValueOnAReplicatedPartitionSurviveKillAndRestarts() throws Exception {
    Node primary = start("p", 0);
    Node backup = start("b", 0);
    new ReplicaAdmin(TIMEOUT, TIMEOUT, null).create(P, 1, primary.address(),
        List.of(backup.address()));
    Random random = new Random(32);
    byte[] key = new byte[MAX_KEY_BYTES];
    random.nextBytes(key);
    byte[] value = new byte[MAX_VALUE_BYTES];
    random.nextBytes(value);
    byte[] second = value.clone();
    second[0] ^= 1;
    second[MAX_VALUE_BYTES - 1] ^= 1;
    try (TcpNodeClient c = client(primary)) {
      assertThat(c.put(P, 1, key, value).status()).isEqualTo(Status.OK);
      assertThat(c.get(P, 1, key).value()).isEqualTo(value);
      assertThat(c.cas(P, 1, key, value, second).status()).as("a compare-and-set of two values")
          .isEqualTo(Status.OK);
    }
    primary = kill9AndRestart(primary);
    try (TcpNodeClient c = client(primary)) {
      KvReply read = c.get(P, 1, key); // levels the backup first: its CONFIRM carries the value
      assertThat(read.status()).as(read.message()).isEqualTo(Status.OK);
      assertThat(read.value()).isEqualTo(second);
    }
    primary = restart(primary);
    backup = restart(backup);
    try (TcpNodeClient c = client(primary)) {
      KvReply read = c.get(P, 1, key);
      assertThat(read.status()).as(read.message()).isEqualTo(Status.OK);
      assertThat(read.value()).isEqualTo(second);
      assertThat(c.put(P, 1, key, value).status()).isEqualTo(Status.OK);
    }
    try (TcpNodeClient b = client(backup)) {
      assertThat(b.status(P).keys()).as("the backup holds it").isEqualTo(1);
    }
  }

  @Test
  void oneByteOverIsRefusedBeforeAnythingIsSentOrLogged() throws Exception {
    Node primary = start("p", 0);
    Node backup = start("b", 0);
    new ReplicaAdmin(TIMEOUT, TIMEOUT, null).create(P, 1, primary.address(),
        List.of(backup.address()));
    try (TcpNodeClient c = client(primary)) {
      assertThatThrownBy(() -> c.put(P, 1, new byte[1], new byte[MAX_VALUE_BYTES + 1]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("put to ")
          .hasMessageContaining("a value of " + (MAX_VALUE_BYTES + 1) + " bytes is over the"
              + " limit of " + MAX_VALUE_BYTES + " bytes (KvLimits.MAX_VALUE_BYTES)");
      assertThatThrownBy(() -> c.put(P, 1, new byte[MAX_KEY_BYTES + 1], new byte[1]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("a key of " + (MAX_KEY_BYTES + 1) + " bytes is over the limit"
              + " of " + MAX_KEY_BYTES + " bytes (KvLimits.MAX_KEY_BYTES)");
      assertThatThrownBy(() -> c.cas(P, 1, new byte[1], new byte[MAX_VALUE_BYTES + 1],
          new byte[1])).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("its expected value");
      assertThat(c.put(P, 1, new byte[1], new byte[] {7}).status()).isEqualTo(Status.OK);
    }
    // the write, sent past the client: the node refuses it, and the partition serves
    try (NodeConnection raw = NodeConnection.open(Wire.parseAddress(primary.address()),
        TIMEOUT, null)) {
      KvReply refused = raw.call(NodeConnection.request(Wire.PUT, P, 1).bytes(new byte[1])
          .bytes(new byte[67_108_834]).toBytes());
      assertThat(refused.status()).isEqualTo(Status.ERROR);
      assertThat(refused.message()).contains("node p refuses the write: a value of 67108834"
          + " bytes is over the limit of " + MAX_VALUE_BYTES + " bytes");
    }
    try (TcpNodeClient c = client(primary)) {
      KvReply read = c.get(P, 1, new byte[1]);
      assertThat(read.status()).as(read.message()).isEqualTo(Status.OK);
      assertThat(read.value()).isEqualTo(new byte[] {7});
    }
  }

  @Test
  void aCopyIsPagedByBytesNotOnlyByCount() throws Exception {
    byte[] value = new byte[100 << 10];
    try (KvNode source = KvNode.start(io.partkit.spi.NodeId.of("s"), dir.resolve("s"), 0);
        KvNode target = KvNode.start(io.partkit.spi.NodeId.of("t"), dir.resolve("t"), 0);
        TcpNodeClient s = TestNodes.client(source);
        TcpNodeClient t = TestNodes.client(target)) {
      s.admin(Wire.ASSIGN, P, 1);
      for (int i = 0; i < 24; i++) {
        assertThat(s.put(P, 1, new byte[] {(byte) i}, value).status()).isEqualTo(Status.OK);
      }
      assertThat(s.admin(Wire.FENCE, P, 2).status()).isEqualTo(Status.OK);
      try (NodeConnection raw = NodeConnection.open(source.address(), TIMEOUT, null)) {
        KvReply first = raw.call(NodeConnection.request(Wire.SNAPSHOT, P, 2).bytes(null)
            .i32(2048).toBytes());
        assertThat(first.status()).isEqualTo(Status.OK);
        int count = new Wire.Reader(first.value()).i32();
        assertThat(count).as("2.4 MiB of values: a page stops after about "
            + NodeMigration.PAGE_BYTES + " bytes").isBetween(1, 23);
      }
      assertThat(t.receive(P, 2, source.hostAndPort()).status()).isEqualTo(Status.OK);
      assertThat(t.admin(Wire.ACTIVATE, P, 2).status()).isEqualTo(Status.OK);
      assertThat(t.status(P).keys()).as("every key copied, page by page").isEqualTo(24);
      assertThat(t.get(P, 2, new byte[] {23}).value()).isEqualTo(value);
    }
  }

  // ---------------------------------------------------------------- node processes

  /** A KvNodeMain process, its data directory and where it listens. */
  private record Node(String id, Process process, String address, int port) {}

  private Node start(String id, int port) throws IOException {
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), HEAP, "-XX:+ExitOnOutOfMemoryError", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        KvNodeMain.class.getName(), "--id", id, "--data", dir.resolve(id).toString(),
        "--port", Integer.toString(port))
        .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve(id + ".err").toFile()))
        .start();
    processes.add(p);
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
        StandardCharsets.UTF_8));
    String line;
    while ((line = out.readLine()) != null && !line.startsWith("KVNODE LISTENING ")) {
      // wait for the line a harness waits for; the process ends the stream if it dies
    }
    assertThat(line).as("node " + id + " started: " + errors(id)).isNotNull();
    String address = line.substring("KVNODE LISTENING ".length()).trim();
    return new Node(id, p, address, Wire.parseAddress(address).getPort());
  }

  private Node kill9AndRestart(Node node) throws Exception {
    node.process().destroyForcibly(); // SIGKILL
    assertThat(node.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
    return start(node.id(), node.port());
  }

  /** Closes the node's standard input (it closes itself cleanly) and starts it again. */
  private Node restart(Node node) throws Exception {
    node.process().getOutputStream().close();
    assertThat(node.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(node.process().exitValue()).as(errors(node.id())).isZero();
    return start(node.id(), node.port());
  }

  private String errors(String id) throws IOException {
    Path file = dir.resolve(id + ".err");
    return Files.exists(file) ? Files.readString(file) : "";
  }

  private static TcpNodeClient client(Node node) {
    return new TcpNodeClient(Wire.parseAddress(node.address()), TIMEOUT, null);
  }
}
