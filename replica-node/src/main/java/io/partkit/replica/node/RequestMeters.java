package io.partkit.replica.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.partkit.replica.Bytes;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Scan;
import io.partkit.replica.Numbering;
import io.partkit.replica.Replica;
import io.partkit.replica.Role;
import io.partkit.replica.node.load.LoadMeters;
import io.partkit.replica.node.load.LoadMeters.Op;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.spi.NodeId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A node's metering of the client requests its replica serves, around the core: it sees each
 * request as the state thread hands it to the core ({@link #received}) and each answer as it
 * leaves for the client, its records durable ({@link #answered}), and counts on the shared
 * {@link LoadMeters} what the core answered OK, the requests the core counts as served in its
 * {@code Pong} (a CAS that found another value is a failure there, and here). The time counted
 * is from the one to the other: the wait for the round, the log's sync and the backups' acks.
 *
 * <p>Called on the state thread only, which alone touches the replica; the meters themselves are
 * read by whoever reads the registry. A partition's meters are built when the node first answers
 * one of its requests as primary, and removed when it is no longer primary of it or numbers it
 * at another modulus (a split: other keys), at the next tick ({@link #review}); counts start
 * again when it is primary once more.
 */
final class RequestMeters implements AutoCloseable {

  /** What a node serves: every op the core knows. */
  private static final EnumSet<Op> OPS = EnumSet.allOf(Op.class);

  /**
   * Requests asked and not yet answered past which the oldest are forgotten: the core answers
   * each request, so only a bug would reach it; the bound keeps such a bug from growing the heap.
   */
  static final int MAX_PENDING = 1 << 16;

  /** A request the core has, waiting for its answer. */
  private record Pending(int partition, Op op, byte[] key, long bytesIn, long startNanos) {}

  /** A client's request, by the endpoint it came from and its number. */
  private record Asked(int client, long id) {}

  /** A partition's meters and the facts they were built under. */
  private static final class Metered {
    final long modulus;
    /** Refreshed at each tick on the state thread; read by the registry's gauge. */
    volatile long keys;
    /** Set once, on the state thread, right after this is made (its gauge reads {@link #keys}). */
    LoadMeters.Partition meters;

    Metered(long modulus, long keys) {
      this.modulus = modulus;
      this.keys = keys;
    }
  }

  private final NodeId node;
  private final LoadMeters meters;
  private final Map<Asked, Pending> pending = new HashMap<>();
  private final Map<Integer, Metered> metered = new HashMap<>();
  /** Keys in the partitions it is primary of, as of the last tick. */
  private volatile long keysServed;

  RequestMeters(int self, MeterRegistry registry, Duration hotKeyWindow) {
    this.node = nodeId(self);
    this.meters = new LoadMeters(node, registry, OPS, () -> keysServed, hotKeyWindow,
        System.nanoTime());
  }

  /** The id node {@code number} has in load views (as a coordinator's member, {@code node-i}). */
  static NodeId nodeId(int number) {
    return NodeId.of("node-" + number);
  }

  /** A client's request or scan, handed to the core at {@code now} ({@link System#nanoTime}). */
  void received(int client, Message m, long now) {
    if (m instanceof Request r) {
      Op op = switch (r.kind()) {
        case GET -> Op.GET;
        case PUT -> Op.PUT;
        case CAS -> Op.CAS;
      };
      remember(new Asked(client, r.id()), new Pending(r.partition(), op, r.key().toArray(),
          length(r.key()) + length(r.expected()) + length(r.value()), now));
    } else if (m instanceof Scan s) {
      remember(new Asked(client, s.id()), new Pending(s.partition(), Op.SCAN, null,
          length(s.from()) + length(s.to()), now));
    }
  }

  private void remember(Asked asked, Pending p) {
    if (pending.size() >= MAX_PENDING) {
      pending.clear();
    }
    pending.put(asked, p);
  }

  /** An answer leaving for client {@code e.to()} at {@code now}: counted if served. */
  void answered(Envelope e, Replica replica, long now) {
    long bytesOut;
    Asked asked;
    if (e.message() instanceof Reply r) {
      asked = new Asked(e.to(), r.id());
      bytesOut = r.outcome() == Outcome.OK ? length(r.value()) : -1;
    } else if (e.message() instanceof Page p) {
      asked = new Asked(e.to(), p.id());
      long bytes = 0;
      for (Map.Entry<Bytes, Bytes> entry : p.entries().entrySet()) {
        bytes += entry.getKey().length() + entry.getValue().length();
      }
      bytesOut = p.outcome() == Outcome.OK ? bytes : -1;
    } else {
      return;
    }
    Pending d = pending.remove(asked);
    if (d == null || bytesOut < 0) {
      return; // not a request it saw, or not served
    }
    Metered m = metered.get(d.partition());
    if (m == null) {
      if (replica.role(d.partition()) != Role.PRIMARY) {
        return; // no longer primary since it answered: not this node's load any more
      }
      Metered built = new Metered(replica.modulus(d.partition()), replica.keys(d.partition()));
      built.meters = meters.partition(d.partition(), () -> built.keys, now);
      metered.put(d.partition(), built);
      m = built;
    }
    meters.served(m.meters, d.op(), d.key(), d.bytesIn(), bytesOut, now - d.startNanos(), now);
  }

  /**
   * At a tick: removes the meters of partitions the node no longer serves as it did (not primary,
   * or numbered at another modulus), and refreshes the key counts the gauges read.
   */
  void review(Replica replica) {
    for (Iterator<Map.Entry<Integer, Metered>> it = metered.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<Integer, Metered> e = it.next();
      int p = e.getKey();
      if (replica.role(p) != Role.PRIMARY || replica.modulus(p) != e.getValue().modulus) {
        meters.remove(e.getValue().meters);
        it.remove();
      } else {
        e.getValue().keys = replica.keys(p);
      }
    }
    long keys = 0;
    for (int p : replica.primaries()) {
      keys += replica.keys(p);
    }
    keysServed = keys;
  }

  /**
   * The node's load view: every partition it is primary of, with the median key of each key
   * range ({@link #splitKey}), and its hottest keys.
   */
  NodeLoad view(Replica replica, long now) {
    List<PartitionLoad> loads = new ArrayList<>();
    for (int p : replica.primaries()) {
      Metered m = metered.get(p);
      long keys = replica.keys(p);
      String state = Role.PRIMARY.name();
      PartitionLoad load = m == null || replica.modulus(p) != m.modulus
          ? new PartitionLoad(p, state, replica.epoch(p), keys, 0, 0, 0, 0, 0, 0, 0, 0)
          : m.meters.load(state, replica.epoch(p), keys, now);
      loads.add(load.withSplitKey(splitKey(replica, p)));
    }
    return meters.view(node, loads);
  }

  /**
   * Where a size-driven split would cut {@code partition}: the median key of its copy ({@link
   * Replica#medianKey}) when it is a key range; null when it holds no key, or is numbered by a
   * hash or a token, whose ranges the order of keys says nothing of. Asked when a view is, on
   * the state thread: it walks half the copy, nothing on the request path.
   */
  static byte[] splitKey(Replica replica, int partition) {
    if (!(replica.numbering(partition) instanceof Numbering.KeySpans)) {
      return null;
    }
    return replica.medianKey(partition).map(Bytes::toArray).orElse(null);
  }

  /** Removes every meter of this node from the registry (the node is closing). */
  @Override
  public void close() {
    metered.clear();
    meters.close();
  }

  private static long length(Bytes b) {
    return b == null ? 0 : b.length();
  }
}
