package io.partkit.kvstore.migration;

import io.partkit.replica.node.access.SharedSecret;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnectionPool;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * How {@link KvMigrationExecutor} reaches nodes: pooled connections (one pool with the request
 * timeout, one with the copy timeout; both prove the secret, if any), calls that retry with
 * backoff until the step timeout, and single attempts whose failure the caller reports or leaves
 * to the next round. Once {@link #stop}ped it issues no more node operations.
 */
final class NodeCalls implements AutoCloseable {

  /** A node call that may fail with an IOException. */
  interface NodeCall {
    KvReply apply(TcpNodeClient client) throws IOException;
  }

  private final Function<NodeId, String> addresses;
  private final long stepTimeoutNanos;
  /**
   * Connections for requests and for copies (their read timeouts differ; both prove the
   * builder's secret, if any): each step of a move on a pooled connection, not a new one with
   * its handshake, which matters most in the fenced window (RECEIVE, ACTIVATE, DROP).
   */
  private final NodeConnectionPool requestConnections;
  private final NodeConnectionPool copyConnections;
  /**
   * Connections for a glance at a node ({@link #glance}): a short read timeout, so that a
   * primary whose partition lock a write holds (while it waits on a silent backup) costs the
   * replica review a moment, not the write's whole wait.
   */
  private final NodeConnectionPool glanceConnections;
  private volatile boolean stopped;

  /** The read timeout of {@link #glance}. */
  static final Duration GLANCE_TIMEOUT = Duration.ofMillis(500);

  NodeCalls(Function<NodeId, String> addresses, Duration stepTimeout, Duration requestTimeout,
      Duration copyTimeout, SharedSecret secret) {
    this.addresses = addresses;
    this.stepTimeoutNanos = stepTimeout.toNanos();
    this.requestConnections = new NodeConnectionPool(requestTimeout, secret);
    this.copyConnections = new NodeConnectionPool(copyTimeout, secret);
    this.glanceConnections = new NodeConnectionPool(GLANCE_TIMEOUT, secret);
  }

  /** From now on no node operation is issued (a dead coordinator does nothing more). */
  void stop() {
    stopped = true;
  }

  boolean stopped() {
    return stopped;
  }

  /**
   * Calls a node, retrying unreachable nodes and node-side errors (a failed copy) with backoff
   * until the step timeout; a REFUSED answer is final.
   */
  KvReply call(NodeId node, String step, NodeCall call, boolean copy) {
    long deadline = System.nanoTime() + stepTimeoutNanos;
    long backoff = TimeUnit.MILLISECONDS.toNanos(5);
    Exception last = null;
    while (true) {
      if (stopped) {
        throw new IllegalStateException("executor closed during " + step);
      }
      try (TcpNodeClient c = client(node, copy)) {
        KvReply reply = call.apply(c);
        if (reply.status() != Status.ERROR) {
          return reply;
        }
        last = new IOException(reply.message());
      } catch (IOException e) {
        last = e;
      }
      if (System.nanoTime() + backoff > deadline) {
        throw new IllegalStateException(step + " on " + node + " failed for "
            + Duration.ofNanos(stepTimeoutNanos) + ": " + last.getMessage(), last);
      }
      try {
        TimeUnit.NANOSECONDS.sleep(backoff);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(step + " on " + node + " interrupted", e);
      }
      backoff = Math.min(backoff * 2, TimeUnit.MILLISECONDS.toNanos(500));
    }
  }

  /** One attempt at an admin operation: whether the node answered OK. */
  boolean tryCall(NodeId node, byte op, int partition, long epoch) {
    if (stopped) {
      return false; // a dead coordinator issues no more node operations
    }
    try (TcpNodeClient c = client(node, false)) {
      return c.admin(op, partition, epoch).isOk();
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** One attempt at a request (its reply), or null when stopped or the node was not reached. */
  KvReply tryRequest(NodeId node, byte[] request, boolean copy) {
    if (stopped) {
      return null;
    }
    try (TcpNodeClient c = client(node, copy)) {
      return c.call(request);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Whether {@code node} serves {@code partition} (OWNED) now; false when it does not answer. */
  boolean serves(NodeId node, int partition) {
    try (TcpNodeClient c = client(node, false)) {
      return c.status(partition).state() == PartitionState.OWNED;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * The node's STATUS of a partition.
   *
   * @throws IllegalStateException if the node does not answer
   */
  PartitionStatus status(NodeId node, int partition) {
    try (TcpNodeClient c = client(node, false)) {
      return c.status(partition);
    } catch (IOException e) {
      throw new IllegalStateException("node " + node + " did not answer STATUS of partition "
          + partition + ": " + e.getMessage(), e);
    }
  }

  static void expectOk(KvReply reply) {
    if (!reply.isOk()) {
      throw new IllegalStateException(reply.message() == null ? reply.toString()
          : reply.message());
    }
  }

  /** A client over pooled connections to {@code node}, with the copy or the request timeout. */
  TcpNodeClient client(NodeId node, boolean copy) {
    String address = addresses.apply(node);
    if (address == null || address.isEmpty()) {
      throw new IllegalStateException("no address known for node " + node);
    }
    return new TcpNodeClient(copy ? copyConnections : requestConnections, address);
  }

  /**
   * A client for one quick question whose answer may wait for another time (the replica review's
   * STATUS): it gives up after {@link #GLANCE_TIMEOUT}.
   */
  TcpNodeClient glance(NodeId node) {
    String address = addresses.apply(node);
    if (address == null || address.isEmpty()) {
      throw new IllegalStateException("no address known for node " + node);
    }
    return new TcpNodeClient(glanceConnections, address);
  }

  /** Closes the pooled connections. */
  @Override
  public void close() {
    stopped = true;
    requestConnections.close();
    copyConnections.close();
    glanceConnections.close();
  }
}
