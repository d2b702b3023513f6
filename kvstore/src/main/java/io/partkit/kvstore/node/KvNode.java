package io.partkit.kvstore.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A storage node of the reference key-value store: it holds some partitions and serves
 * get/put/cas on them over TCP (protocol: see the module's {@code docs/kvstore.md}).
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Ownership.</b> It serves only partitions it holds in state {@link PartitionState#OWNED},
 *       and only requests whose epoch is at least the epoch it owns them under; anything else is
 *       answered with a redirect carrying the newer epoch, or MOVING while a partition moves. It
 *       never serves the data of a partition it does not own.
 *   <li><b>Durability.</b> Every acknowledged write, and every state change, is in the node's
 *       write-ahead log and forced to disk first; a node killed with {@code kill -9} and
 *       restarted on the same data directory recovers all of them.
 *   <li><b>Linearizable per key</b> while owned: writes to a partition are applied under its lock
 *       in log order, and a read waits until what it saw is durable.
 * </ul>
 */
public interface KvNode extends AutoCloseable {

  /**
   * How long a primary waits for a backup's answer. A write holds its partition's lock that
   * long at most, so a dead backup stalls the partition's writes for this, then they fail
   * UNAVAILABLE until the coordinator takes the backup out of the replica set. The default; a
   * node may be started with another ({@code KvNodeMain --replica-timeout-ms}).
   */
  Duration REPLICA_TIMEOUT = Duration.ofSeconds(5);
  /**
   * How long a primary waits for a backup before it names it a suspect to the coordinator
   * (SUSPECTS), by default; it waits on until the replica timeout or a new configuration. A
   * node started with a replica timeout of at most twice this suspects after half of it.
   */
  Duration SUSPECT_AFTER = Duration.ofSeconds(1);

  /** {@link #SUSPECT_AFTER}, or half of {@code replicaTimeout} when that is shorter. */
  static Duration defaultSuspectAfter(Duration replicaTimeout) {
    Duration half = replicaTimeout.dividedBy(2);
    return half.compareTo(SUSPECT_AFTER) < 0 && !half.isZero() ? half : SUSPECT_AFTER;
  }

  /**
   * Starts a node listening on {@code 127.0.0.1:port} ({@code port} 0 picks a free one), after
   * replaying the log in {@code dataDir}.
   *
   * @throws IOException if the data directory cannot be read or the port is taken
   */
  static KvNode start(NodeId id, Path dataDir, int port) throws IOException {
    return TcpKvNode.start(id, dataDir, new InetSocketAddress("127.0.0.1", port));
  }

  /**
   * Starts a node listening on {@code bind} that admits only peers proving {@code secret}
   * (clients, other nodes, the migration executor: give each the same {@link SharedSecret}).
   *
   * @throws IOException if the data directory cannot be read or the address is taken
   */
  static KvNode start(NodeId id, Path dataDir, InetSocketAddress bind, SharedSecret secret)
      throws IOException {
    return TcpKvNode.start(id, dataDir, bind, UnsafeTestFault.NONE, ConnectionLimits.DEFAULT,
        java.util.Objects.requireNonNull(secret, "secret"));
  }

  /**
   * As {@link #start(NodeId, Path, int)}, with the node's meters (per partition and per node,
   * see {@code docs/kvstore.md}) registered on {@code registry}, e.g. a Prometheus or JMX
   * registry; the other {@code start} methods give each node its own {@code
   * SimpleMeterRegistry}. The node removes its meters from the registry when it closes.
   *
   * @throws IOException if the data directory cannot be read or the port is taken
   */
  static KvNode start(NodeId id, Path dataDir, int port, MeterRegistry registry)
      throws IOException {
    return TcpKvNode.start(id, dataDir, new InetSocketAddress("127.0.0.1", port),
        UnsafeTestFault.NONE, ConnectionLimits.DEFAULT, null,
        java.util.Objects.requireNonNull(registry, "registry"));
  }

  /**
   * As {@link #start(NodeId, Path, InetSocketAddress, SharedSecret)}, with the node's meters on
   * {@code registry}.
   *
   * @throws IOException if the data directory cannot be read or the address is taken
   */
  static KvNode start(NodeId id, Path dataDir, InetSocketAddress bind, SharedSecret secret,
      MeterRegistry registry) throws IOException {
    return TcpKvNode.start(id, dataDir, bind, UnsafeTestFault.NONE, ConnectionLimits.DEFAULT,
        java.util.Objects.requireNonNull(secret, "secret"),
        java.util.Objects.requireNonNull(registry, "registry"));
  }

  /** This node's identity. */
  NodeId id();

  /** Where it listens. */
  InetSocketAddress address();

  /** {@code host:port}, the form a {@link io.partkit.spi.Member#address()} takes. */
  default String hostAndPort() {
    return address().getHostString() + ":" + address().getPort();
  }

  /** The local state of one partition. */
  PartitionStatus status(int partition);

  /**
   * This node's load view, as its {@code LOAD} answer carries it (the client's {@code
   * KvClient.load()} reads it from every node).
   */
  NodeLoad load();

  /** Stops listening and closes every connection and the log. */
  @Override
  void close();
}
