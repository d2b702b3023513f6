package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.spi.NodeId;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node with the cluster's secret admits only peers that prove it. */
class SharedSecretTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private SharedSecret secret(String name) throws IOException {
    return SharedSecret.generate(dir.resolve(name));
  }

  private KvNode node(String id, SharedSecret secret) throws IOException {
    return KvNode.start(NodeId.of(id), dir.resolve(id), new InetSocketAddress("127.0.0.1", 0),
        secret);
  }

  @Test
  void aClientWithTheSecretIsServed() throws IOException {
    SharedSecret secret = secret("s");
    try (KvNode node = node("n1", secret);
        TcpNodeClient c = new TcpNodeClient(node.address(), TIMEOUT, secret)) {
      assertThat(c.admin(Wire.ASSIGN, 0, 1).status()).isEqualTo(Status.OK);
      assertThat(c.put(0, 1, b("k"), b("v")).status()).isEqualTo(Status.OK);
      assertThat(c.get(0, 1, b("k")).value()).isEqualTo(b("v"));
    }
  }

  @Test
  void aClientWithoutTheSecretOrWithAnotherIsRefusedBeforeSendingAnything() throws IOException {
    try (KvNode node = node("n1", secret("s"));
        TcpNodeClient none = new TcpNodeClient(node.address(), TIMEOUT, null);
        TcpNodeClient other = new TcpNodeClient(node.address(), TIMEOUT, secret("other"))) {
      assertThatThrownBy(() -> none.admin(Wire.ASSIGN, 0, 1))
          .isInstanceOf(ConnectException.class)
          .hasMessageContaining("requires the cluster's shared secret");
      assertThatThrownBy(() -> other.admin(Wire.ASSIGN, 0, 1))
          .isInstanceOf(ConnectException.class)
          .hasMessageContaining("the secrets differ");
      assertThat(node.status(0).state()).isEqualTo(PartitionState.ABSENT);
    }
  }

  @Test
  void aRequestSentWithoutTheHandshakeIsNeverExecuted() throws IOException {
    SharedSecret secret = secret("s");
    try (KvNode node = node("n1", secret);
        TcpNodeClient admin = new TcpNodeClient(node.address(), TIMEOUT, secret)) {
      admin.admin(Wire.ASSIGN, 0, 1);
      try (Socket raw = new Socket()) {
        raw.setSoTimeout(Math.toIntExact(TIMEOUT.toMillis()));
        raw.connect(node.address());
        // skip the greeting and send a FENCE frame as if it were the proof
        DataOutputStream out = new DataOutputStream(raw.getOutputStream());
        byte[] fence = NodeConnection.request(Wire.FENCE, 0, 2).toBytes();
        out.writeInt(fence.length);
        out.write(fence);
        out.flush();
        InputStream in = raw.getInputStream();
        while (in.read() >= 0) {
          // the greeting, the refusal, then the close
        }
      }
      assertThat(node.status(0).state()).as("not fenced").isEqualTo(PartitionState.OWNED);
    }
  }

  @Test
  void aValidProofFollowedByJunkInTheSameFrameIsRefused() throws Exception {
    SharedSecret secret = secret("s");
    try (KvNode node = node("n1", secret)) {
      assertThat(login(node, secret, new byte[0])).as("the proof alone").isEqualTo(1);
      assertThat(login(node, secret, b("junk"))).as("the proof, then junk").isEqualTo(0);
    }
  }

  /**
   * Logs in over a raw socket with a right proof followed by {@code trailer} in its frame, and
   * returns the node's RESULT byte (1 accepted, 0 refused).
   */
  private static int login(KvNode node, SharedSecret secret, byte[] trailer) throws Exception {
    try (Socket raw = new Socket()) {
      raw.setSoTimeout(Math.toIntExact(TIMEOUT.toMillis()));
      raw.connect(node.address());
      InputStream in = raw.getInputStream();
      Wire.Reader hello = new Wire.Reader(Wire.readFrame(in));
      assertThat(hello.i8()).as("version").isEqualTo((byte) 1);
      assertThat(hello.i8()).as("auth").isEqualTo((byte) 1);
      byte[] challenge = hello.bytes();
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.key(), "HmacSHA256"));
      mac.update("partkit-kv-auth-v1".getBytes(StandardCharsets.US_ASCII));
      byte[] proof = mac.doFinal(challenge);
      byte[] body = new Wire.Writer().bytes(proof).toBytes();
      byte[] frame = Arrays.copyOf(body, body.length + trailer.length);
      System.arraycopy(trailer, 0, frame, body.length, trailer.length);
      Wire.writeFrame(raw.getOutputStream(), frame);
      return new Wire.Reader(Wire.readFrame(in)).i8();
    }
  }

  @Test
  void nodesWithTheSecretCopyAPartitionBetweenThem() throws IOException {
    SharedSecret secret = secret("s");
    try (KvNode source = node("n1", secret);
        KvNode target = node("n2", secret);
        TcpNodeClient s = new TcpNodeClient(source.address(), TIMEOUT, secret);
        TcpNodeClient t = new TcpNodeClient(target.address(), TIMEOUT, secret)) {
      s.admin(Wire.ASSIGN, 0, 1);
      s.put(0, 1, b("k"), b("v"));
      assertThat(s.admin(Wire.FENCE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(t.receive(0, 2, source.hostAndPort()).status()).isEqualTo(Status.OK);
      assertThat(t.admin(Wire.ACTIVATE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(t.get(0, 2, b("k")).value()).isEqualTo(b("v"));
    }
  }

  @Test
  void aNodeRefusesANonLoopbackAddressWithoutASecret() {
    assertThatThrownBy(() -> TcpKvNode.start(NodeId.of("n1"), dir.resolve("n1"),
        new InetSocketAddress("0.0.0.0", 0), UnsafeTestFault.NONE, ConnectionLimits.DEFAULT,
        null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no shared secret").hasMessageContaining("--secret-file");
    assertThat(dir.resolve("n1")).as("nothing created").doesNotExist();
  }

  @Test
  void aSecretFileMustHoldSixteenBytesAndMayEndWithANewline() throws IOException {
    Path shortOne = Files.writeString(dir.resolve("short"), "too short\n");
    assertThatThrownBy(() -> SharedSecret.read(shortOne))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holds 9 bytes; at least 16")
        .hasMessageContaining("head -c 32 /dev/urandom");
    Path good = Files.writeString(dir.resolve("good"), "0123456789abcdef\n");
    assertThat(SharedSecret.read(good).key()).isEqualTo(b("0123456789abcdef"));
    assertThat(SharedSecret.read(good).toString()).doesNotContain("0123");
  }
}
