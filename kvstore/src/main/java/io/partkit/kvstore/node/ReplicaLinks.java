package io.partkit.kvstore.node;

import io.partkit.replica.node.access.SharedSecret;
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
 * <p>A failed call never throws: it becomes an {@link Answer} whose {@link Heard} says that the
 * replica did not answer (and whether it timed out), with an {@link Status#UNAVAILABLE} reply
 * naming the replica, because the caller's decision (acknowledge or not) needs every answer
 * anyway. Callers decide on {@link Heard}, never on the reply's wording.
 */
final class ReplicaLinks implements AutoCloseable {

  /** Whether a replica answered a call, and if not, how the call ended. */
  enum Heard {
    /** The replica's own answer, whatever it says (a refusal too). */
    ANSWERED,
    /** No answer: the connection was refused or broke. */
    NO_ANSWER,
    /** No answer within the timeout, on the request or on a new connection's handshake. */
    TIMED_OUT
  }

  /**
   * One replica's answer to one call.
   *
   * @param reply the replica's reply, or an UNAVAILABLE reply naming it when it did not answer
   * @param heard whether it answered
   */
  record Answer(KvReply reply, Heard heard) {
    /** The replica did not answer (a timeout, a refused or broken connection). */
    boolean unanswered() {
      return heard != Heard.ANSWERED;
    }

    boolean timedOut() {
      return heard == Heard.TIMED_OUT;
    }
  }

  private final NodeConnectionPool pool;
  /** The read timeout of every call, named in the answer that stands for a timeout. */
  private final long timeoutMillis;
  private final ExecutorService calls = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "kvnode-replica-call");
    t.setDaemon(true);
    return t;
  });

  /** Told of an Error on a call thread (the node stops): a future would only carry it. */
  private volatile java.util.function.Consumer<Error> onError = e -> { };

  ReplicaLinks(Duration timeout, SharedSecret secret) {
    this.pool = new NodeConnectionPool(timeout, secret);
    this.timeoutMillis = timeout.toMillis();
  }

  /** Sends {@code request} to every address; the answers in the order of the addresses. */
  List<Answer> callAll(List<String> addresses, byte[] request) {
    if (addresses.size() == 1) {
      return List.of(call(addresses.get(0), request));
    }
    List<Answer> answers = new ArrayList<>(addresses.size());
    for (CompletableFuture<Answer> f : sendAll(addresses, request)) {
      answers.add(f.join()); // call() never throws, and every call has a read timeout
    }
    return answers;
  }

  /**
   * Sends {@code request} to every address on this node's call threads; the answers to come, in
   * the order of the addresses. Each completes (never exceptionally) within the timeout.
   */
  List<CompletableFuture<Answer>> sendAll(List<String> addresses, byte[] request) {
    List<CompletableFuture<Answer>> pending = new ArrayList<>(addresses.size());
    for (String address : addresses) {
      pending.add(CompletableFuture.supplyAsync(() -> {
        try {
          return call(address, request);
        } catch (Error e) {
          onError.accept(e); // some waits read a failed future as an unanswered call
          throw e;
        }
      }, calls));
    }
    return pending;
  }

  /** One request to one replica; an I/O failure is an unanswered call. */
  Answer call(String address, byte[] request) {
    NodeConnection connection = null;
    try {
      connection = pool.borrow(address);
      KvReply reply = connection.call(request);
      pool.release(address, connection);
      return new Answer(reply, Heard.ANSWERED);
    } catch (IOException | IllegalArgumentException e) {
      if (connection != null) {
        connection.close();
      }
      boolean timedOut = timeout(e);
      return new Answer(KvReply.of(Status.UNAVAILABLE, 0, "replica " + address
          + " did not answer" + (timedOut ? " in time (" + timeoutMillis + " ms): " : ": ") + e),
          timedOut ? Heard.TIMED_OUT : Heard.NO_ANSWER);
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

  /** Runs {@code task} on this node's replica-call threads (interrupted at close). */
  void runAsync(Runnable task) {
    calls.execute(() -> {
      try {
        task.run();
      } catch (Error e) {
        onError.accept(e);
        throw e;
      }
    });
  }

  /** Who is told of an Error on a call thread. */
  void onError(java.util.function.Consumer<Error> listener) {
    onError = listener;
  }

  @Override
  public void close() {
    calls.shutdownNow();
    pool.close();
  }
}
