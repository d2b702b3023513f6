package io.partkit.kvstore;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.KeyRanges;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

/** {@link KvClient}: a cached table, pooled connections, bounded retries. */
final class RoutingKvClient implements KvClient {

  private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** Most keys one SCAN request asks for: a page, so one answer stays small. */
  private static final int SCAN_PAGE = 1_000;

  /** Builds the request for a partition of the table it is routed by (and at its epoch). */
  private interface Request {
    byte[] encode(PartitionAssignment table, int partition);
  }

  private final Supplier<PartitionAssignment> tables;
  private final Function<NodeId, String> addresses;
  private final Duration requestTimeout;
  private final KvSecret secret;
  private final long retryBudgetNanos;
  private final AtomicReference<PartitionAssignment> table = new AtomicReference<>();
  private final NodeConnectionPool pool;
  private volatile boolean closed;

  RoutingKvClient(KvClient.Builder b) {
    this.tables = b.tables;
    this.addresses = b.addresses;
    this.requestTimeout = b.requestTimeout;
    this.secret = b.secret;
    this.retryBudgetNanos = b.retryBudget.toNanos();
    this.pool = new NodeConnectionPool(requestTimeout, secret);
    offer(requireNonNull(tables.get(), "the table source returned null"));
  }

  @Override
  public byte[] get(byte[] key) {
    requireNonNull(key, "key");
    return route(Op.GET, key,
        (t, p) -> NodeConnection.request(Wire.GET, p, t.epoch()).bytes(key).toBytes()).value();
  }

  @Override
  public void put(byte[] key, byte[] value) {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    route(Op.PUT, key,
        (t, p) -> NodeConnection.request(Wire.PUT, p, t.epoch()).bytes(key).bytes(value)
            .toBytes());
  }

  @Override
  public boolean cas(byte[] key, byte[] expected, byte[] value) {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    return route(Op.CAS, key, (t, p) -> NodeConnection.request(Wire.CAS, p, t.epoch())
        .bytes(key).bytes(expected).bytes(value).toBytes()).isOk();
  }

  @Override
  public List<Map.Entry<byte[], byte[]>> scan(byte[] from, byte[] to, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("scan limit must be >= 1: " + limit);
    }
    if (from != null && to != null && Arrays.compareUnsigned(from, to) > 0) {
      throw new IllegalArgumentException("scan range is empty: from " + HexFormat.of()
          .formatHex(from) + " is above to " + HexFormat.of().formatHex(to));
    }
    keyRanges(table.get()); // fail at once on a hash table, not after a round trip
    List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
    byte[] cursor = from == null ? new byte[0] : from.clone();
    while (out.size() < limit) {
      byte[] start = cursor;
      int want = Math.min(SCAN_PAGE, limit - out.size());
      // the end of the range the page was routed to, by the table it was routed by: a later
      // table may have split or merged it, and the next page is routed afresh from there
      byte[][] end = new byte[1][];
      KvReply reply = route(Op.SCAN, start, (t, p) -> {
        byte[] upper = keyRanges(t).upperBound(p);
        end[0] = upper == null ? to
            : to == null || Arrays.compareUnsigned(upper, to) < 0 ? upper : to;
        return NodeConnection.request(Wire.SCAN, p, t.epoch()).bytes(start).bytes(end[0])
            .i32(want).toBytes();
      });
      byte[] last = null;
      try {
        Wire.Reader page = new Wire.Reader(reply.value());
        int count = page.i32();
        for (int i = 0; i < count; i++) {
          last = page.bytes();
          out.add(Map.entry(last, page.bytes()));
        }
        if (page.i8() != 0) {
          cursor = Arrays.copyOf(last, last.length + 1); // the next key after last: last + 0x00
          continue;
        }
      } catch (IOException e) {
        throw new KvException("scan: a malformed page from the owner of "
            + HexFormat.of().formatHex(start) + ": " + e.getMessage(), false, e);
      }
      if (end[0] == null || to != null && Arrays.compareUnsigned(end[0], to) >= 0) {
        break; // the last range, or the end asked for
      }
      cursor = end[0]; // the first key of the next range
    }
    return out;
  }

  private static KeyRanges keyRanges(PartitionAssignment t) {
    if (!(t.scheme() instanceof KeyRanges ranges)) {
      throw new UnsupportedOperationException("scan needs a table over key ranges; the table of"
          + " epoch " + t.epoch() + " is over " + t.scheme() + ", which scatters consecutive"
          + " keys (use strategy 'range')");
    }
    return ranges;
  }

  /** The operations a client routes, and whether sending one again is harmless. */
  private enum Op {
    GET(true), PUT(false), CAS(false), SCAN(true);

    /** A read: it has no effect, so an answer that may have been lost is asked again. */
    final boolean readOnly;

    Op(boolean readOnly) {
      this.readOnly = readOnly;
    }

    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private KvReply route(Op op, byte[] key, Request request) {
    if (closed) {
      throw new IllegalStateException("client is closed");
    }
    long start = System.nanoTime();
    long backoff = MIN_BACKOFF_NANOS;
    KvReply last = null;
    Exception lastError = null;
    while (true) {
      PartitionAssignment t = table.get();
      int partition = t.partitionOf(key);
      NodeId owner = t.primary(partition);
      String address = addresses.apply(owner);
      NodeConnection connection = null;
      try {
        connection = pool.borrow(address);
        KvReply reply = connection.call(request.encode(t, partition));
        pool.release(address, connection);
        switch (reply.status()) {
          case OK, CAS_FAILED -> {
            return reply;
          }
          case MOVING, REDIRECT -> {
            last = reply;
            refresh();
          }
          case UNAVAILABLE -> {
            // a replica did not answer: a read had no effect and is tried again; a write may
            // have taken effect, so sending it again could apply it twice
            if (!op.readOnly) {
              throw new KvException(op + " on partition " + partition + " at " + owner
                  + " may or may not have been applied: " + reply, true, null);
            }
            last = reply;
            refresh();
          }
          default -> throw new KvException(op + " on partition " + partition + " at " + owner
              + " failed: " + reply, false, null);
        }
      } catch (ConnectException e) {
        lastError = e; // never sent: the owner is down or restarting, retry after a refresh
        refresh();
      } catch (IOException e) {
        throw new KvException(op + " on partition " + partition + " at " + owner
            + " may or may not have been applied: " + e.getMessage(), true, e);
      }
      long elapsed = System.nanoTime() - start;
      if (elapsed + backoff > retryBudgetNanos) {
        throw new KvException(op + " on partition " + partition + " not done within "
            + Duration.ofNanos(retryBudgetNanos) + "; last answer " + last, false, lastError);
      }
      try {
        TimeUnit.NANOSECONDS.sleep(backoff);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new KvException(op + " interrupted before it was sent again", false, e);
      }
      backoff = Math.min(MAX_BACKOFF_NANOS, backoff * 2);
    }
  }

  private void refresh() {
    try {
      PartitionAssignment fresh = tables.get();
      if (fresh != null) {
        offer(fresh);
      }
    } catch (RuntimeException e) {
      // the table source (the coordinator) is unavailable: keep routing with the cached table
    }
  }

  @Override
  public void offer(PartitionAssignment newer) {
    requireNonNull(newer, "table");
    table.accumulateAndGet(newer,
        (cur, next) -> cur == null || next.epoch() > cur.epoch() ? next : cur);
  }

  @Override
  public long tableEpoch() {
    return table.get().epoch();
  }

  @Override
  public void close() {
    closed = true;
    pool.close();
  }
}
