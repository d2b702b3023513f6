package io.partkit.kvstore.wire;

import static java.util.Objects.requireNonNull;

import io.partkit.kvstore.KvLimits;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * {@link KvNodeClient} over one lazily opened connection, or over connections borrowed from a
 * {@link NodeConnectionPool}, plus the administrative steps of a migration (only the migration
 * executor and the tests drive them; public because the executor is in another package).
 */
public final class TcpNodeClient implements KvNodeClient {

  private final InetSocketAddress address;
  private final Duration timeout;
  private final SharedSecret secret;
  private NodeConnection connection;
  /** Null, or where the connections come from (then {@link #address} is not used). */
  private final NodeConnectionPool pool;
  private final String poolAddress;

  public TcpNodeClient(InetSocketAddress address, Duration timeout) {
    this(address, timeout, null);
  }

  /** A client that proves {@code secret} to nodes that ask (null: to none). */
  public TcpNodeClient(InetSocketAddress address, Duration timeout, SharedSecret secret) {
    this.secret = secret;
    this.address = requireNonNull(address, "address");
    requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    this.timeout = timeout;
    this.pool = null;
    this.poolAddress = null;
  }

  /**
   * A client over {@code pool}'s connections to {@code hostAndPort}: each call borrows one and
   * gives it back, so a step on the critical path of a move does not pay for a new connection
   * and its handshake. For the executor's requests only, which are all idempotent (a step done
   * already answers OK), see {@link #call}.
   */
  public TcpNodeClient(NodeConnectionPool pool, String hostAndPort) {
    this.pool = requireNonNull(pool, "pool");
    this.poolAddress = requireNonNull(hostAndPort, "hostAndPort");
    this.address = Wire.parseAddress(hostAndPort);
    this.timeout = null;
    this.secret = null;
  }

  /** The node this client speaks to. */
  public InetSocketAddress address() {
    return address;
  }

  public KvReply call(byte[] request) throws IOException {
    if (pool != null) {
      // the executor's requests are idempotent (a step done already answers OK): one that
      // met a broken pooled connection may be sent again
      return pool.withConnection(poolAddress, c -> c.call(request));
    }
    if (connection == null || connection.isStale()) {
      if (connection != null) {
        connection.close();
      }
      connection = NodeConnection.open(address, timeout, secret);
    }
    return connection.call(request);
  }

  @Override
  public KvReply get(int partition, long epoch, byte[] key) throws IOException {
    return call(NodeConnection.request(Wire.GET, partition, epoch).bytes(requireNonNull(key, "key"))
        .toBytes());
  }

  @Override
  public KvReply put(int partition, long epoch, byte[] key, byte[] value) throws IOException {
    KvLimits.check("put to " + address, key, value);
    return call(NodeConnection.request(Wire.PUT, partition, epoch).bytes(requireNonNull(key, "key"))
        .bytes(requireNonNull(value, "value")).toBytes());
  }

  @Override
  public KvReply cas(int partition, long epoch, byte[] key, byte[] expected, byte[] value)
      throws IOException {
    KvLimits.check("compare-and-set to " + address, key, value);
    KvLimits.check("compare-and-set to " + address + " (its expected value)", key, expected);
    return call(NodeConnection.request(Wire.CAS, partition, epoch).bytes(requireNonNull(key, "key"))
        .bytes(expected).bytes(requireNonNull(value, "value")).toBytes());
  }

  @Override
  public KvReply scan(int partition, long epoch, byte[] from, byte[] to, int limit)
      throws IOException {
    return call(ScanPage.request(partition, epoch, from, to, limit));
  }

  @Override
  public PartitionStatus status(int partition) throws IOException {
    return nodeStatus(partition).toPartitionStatus(partition);
  }

  /** The STATUS answer with what only replica changes need (see {@link NodeStatus}). */
  public NodeStatus nodeStatus(int partition) throws IOException {
    KvReply reply = admin(Wire.STATUS, partition, 0);
    if (!reply.isOk()) {
      throw new IOException("STATUS of partition " + partition + " at " + address + ": " + reply);
    }
    return NodeStatus.of(reply);
  }

  /** Every partition the node holds in a state other than ABSENT. */
  public java.util.List<PartitionStatus> list() throws IOException {
    KvReply reply = admin(Wire.LIST, 0, 0);
    if (!reply.isOk()) {
      throw new IOException("LIST at " + address + ": " + reply);
    }
    Wire.Reader r = new Wire.Reader(reply.value());
    int n = r.i32();
    java.util.List<PartitionStatus> out = new java.util.ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int partition = r.i32();
      PartitionState state = PartitionState.ofCode(r.i8());
      out.add(new PartitionStatus(partition, state, r.i64(), r.i64()));
    }
    return out;
  }

  /** An administrative step: ASSIGN, FENCE, UNFENCE, ACTIVATE, ABORT, DROP or STATUS. */
  public KvReply admin(byte op, int partition, long epoch) throws IOException {
    return call(NodeConnection.request(op, partition, epoch).toBytes());
  }

  /** Makes this node copy the partition from {@code source} while the source still serves it. */
  public KvReply precopy(int partition, long moveEpoch, String source) throws IOException {
    return call(NodeConnection.request(Wire.PRECOPY, partition, moveEpoch).utf(source).toBytes());
  }

  /** Makes this node pull the fenced partition from {@code source}. */
  public KvReply receive(int partition, long moveEpoch, String source) throws IOException {
    return call(NodeConnection.request(Wire.RECEIVE, partition, moveEpoch).utf(source).toBytes());
  }

  /** Closes its own connection; a pooled client has none (its connections are back in the pool). */
  @Override
  public void close() {
    if (connection != null) {
      connection.close();
    }
  }
}
