package io.partkit.kvstore.node;

import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Real nodes a test starts, each in a directory of its own under the test's temporary directory,
 * closed after each test: {@code @RegisterExtension final TestNodes nodes = new TestNodes(() ->
 * dir);} beside the test's {@code @TempDir Path dir}.
 */
final class TestNodes implements AfterEachCallback {

  /** Generous: the machine running the tests may be busy. */
  static final Duration TIMEOUT = Duration.ofSeconds(20);

  private final Supplier<Path> dir;
  private final List<KvNode> started = new ArrayList<>();

  TestNodes(Supplier<Path> dir) {
    this.dir = dir;
  }

  /** A node named {@code name} on a free port. */
  KvNode start(String name) throws IOException {
    return start(name, 0);
  }

  /** A node named {@code name} on {@code port} (0: a free one), over its earlier files if any. */
  KvNode start(String name, int port) throws IOException {
    KvNode n = KvNode.start(NodeId.of(name), dir.get().resolve(name), port);
    started.add(n);
    return n;
  }

  /** An admin client of {@code node}, which the caller closes. */
  static TcpNodeClient client(KvNode node) {
    return (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    started.forEach(KvNode::close);
    started.clear();
  }
}
