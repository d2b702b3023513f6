package io.partkit.kvstore.node;

import io.partkit.kvstore.KvSecret;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.NodeConnectionPool;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A node's connections to the other replicas of the partitions it leads: a pool per address and
 * one request sent to all of a partition's backups at once, so a write waits for the slowest
 * backup rather than for the sum of them.
 *
 * <p>A failed call never throws: it becomes an {@link Status#UNAVAILABLE} answer naming the
 * replica, because the caller's decision (acknowledge or not) needs every answer anyway.
 */
final class ReplicaLinks implements AutoCloseable {

  private static final String UNANSWERED = "replica ";
  private static final String IN_TIME = " in time (";
  private final NodeConnectionPool pool;
  /** The read timeout of every call, named in the answer that stands for a timeout. */
  private final long timeoutMillis;
  private final ExecutorService calls = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "kvnode-replica-call");
    t.setDaemon(true);
    return t;
  });

  ReplicaLinks(Duration timeout, KvSecret secret) {
    this.pool = new NodeConnectionPool(timeout, secret);
    this.timeoutMillis = timeout.toMillis();
  }

  /** Sends {@code request} to every address; the answers in the order of the addresses. */
  List<KvReply> callAll(List<String> addresses, byte[] request) {
    if (addresses.size() == 1) {
      return List.of(call(addresses.get(0), request));
    }
    List<CompletableFuture<KvReply>> pending = new ArrayList<>(addresses.size());
    for (String address : addresses) {
      pending.add(CompletableFuture.supplyAsync(() -> call(address, request), calls));
    }
    List<KvReply> answers = new ArrayList<>(addresses.size());
    for (CompletableFuture<KvReply> f : pending) {
      answers.add(f.join()); // call() never throws, and every call has a read timeout
    }
    return answers;
  }

  /** One request to one replica; an I/O failure is an UNAVAILABLE answer. */
  KvReply call(String address, byte[] request) {
    NodeConnection connection = null;
    try {
      connection = pool.borrow(address);
      KvReply reply = connection.call(request);
      pool.release(address, connection);
      return reply;
    } catch (IOException | IllegalArgumentException e) {
      if (connection != null) {
        connection.close();
      }
      return KvReply.of(Status.UNAVAILABLE, 0, UNANSWERED + address + " did not answer"
          + (timeout(e) ? IN_TIME + timeoutMillis + " ms): " : ": ") + e);
    }
  }

  /**
   * A read that timed out, on a request or on the handshake of a new connection (which the
   * connection reports as not sent, with the timeout as its cause): either way the replica did
   * not answer in time, as under a network cut.
   */
  private static boolean timeout(Exception e) {
    return e instanceof SocketTimeoutException || e.getCause() instanceof SocketTimeoutException;
  }

  /**
   * Whether {@code reply} is this class's stand-in for a replica that did not answer (a
   * timeout, a refused or broken connection), as opposed to the replica's own answer.
   */
  static boolean unanswered(KvReply reply) {
    return reply.status() == Status.UNAVAILABLE && reply.message() != null
        && reply.message().startsWith(UNANSWERED);
  }

  /** Whether {@code reply} stands for a replica that did not answer within the timeout. */
  static boolean timedOut(KvReply reply) {
    return unanswered(reply) && reply.message().contains(IN_TIME);
  }

  /** Runs {@code task} on this node's replica-call threads (interrupted at close). */
  void runAsync(Runnable task) {
    calls.execute(task);
  }

  @Override
  public void close() {
    calls.shutdownNow();
    pool.close();
  }
}
