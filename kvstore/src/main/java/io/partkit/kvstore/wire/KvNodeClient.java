package io.partkit.kvstore.wire;

import io.partkit.replica.node.access.SharedSecret;
import io.partkit.kvstore.PartitionStatus;
import java.io.IOException;
import java.time.Duration;

/**
 * A raw connection to one node: requests go to that node with the partition and epoch the caller
 * gives, and the node's answer comes back as is. This is what the migration executor and the
 * routing client speak, and what fencing is tested with (a write sent to an old owner).
 * Public only because the kvstore's packages share it: its replies ({@link KvReply}) are the
 * wire protocol, which may change in any release; applications use the routing {@code KvClient},
 * and a harness that checks a node's partitions uses {@code KvClient.partitionStatus}.
 *
 * <p>Not thread-safe: one request at a time; open one per thread.
 */
public interface KvNodeClient extends AutoCloseable {

  /**
   * A client for the node at {@code hostAndPort}; it connects on first use and reconnects after a
   * failure. Every request waits at most {@code timeout} for its answer.
   *
   * @throws IllegalArgumentException if the address is not {@code host:port} or the timeout is
   *     not positive
   */
  static KvNodeClient connect(String hostAndPort, Duration timeout) {
    return new TcpNodeClient(Wire.parseAddress(hostAndPort), timeout);
  }

  /**
   * As {@link #connect(String, Duration)}, proving {@code secret} to the node when it asks (a
   * node with a secret admits no one else).
   */
  static KvNodeClient connect(String hostAndPort, Duration timeout, SharedSecret secret) {
    return new TcpNodeClient(Wire.parseAddress(hostAndPort), timeout,
        java.util.Objects.requireNonNull(secret, "secret"));
  }

  /**
   * Reads a key.
   *
   * @throws IOException if the node could not be reached or did not answer in time
   */
  KvReply get(int partition, long epoch, byte[] key) throws IOException;

  /**
   * Writes a key.
   *
   * @throws IOException if the node could not be reached or did not answer in time: the write
   *     may or may not have been applied
   */
  KvReply put(int partition, long epoch, byte[] key, byte[] value) throws IOException;

  /**
   * Sets a key to {@code value} if it holds {@code expected} ({@code null}: if it is absent).
   *
   * @throws IOException as for {@link #put}
   */
  KvReply cas(int partition, long epoch, byte[] key, byte[] expected, byte[] value)
      throws IOException;

  /**
   * One page of a partition's keys in {@code [from, to)} ({@code to} null: no end), at most
   * {@code limit}; an OK answer's value is read with {@link ScanPage#of}.
   *
   * @throws IOException if the node could not be reached or did not answer in time
   */
  KvReply scan(int partition, long epoch, byte[] from, byte[] to, int limit) throws IOException;

  /**
   * The node's view of a partition.
   *
   * @throws IOException if the node could not be reached or did not answer in time
   */
  PartitionStatus status(int partition) throws IOException;

  @Override
  void close();
}
