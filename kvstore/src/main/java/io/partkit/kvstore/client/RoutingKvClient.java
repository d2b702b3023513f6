package io.partkit.kvstore.client;

import static java.util.Objects.requireNonNull;

import io.partkit.kvstore.KvEntry;
import io.partkit.kvstore.KvLimits;
import io.partkit.kvstore.load.LoadAnswer;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.NodeConnectionPool;
import io.partkit.kvstore.wire.ScanPage;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

/** {@link KvClient}: a cached table, pooled connections, bounded retries. */
final class RoutingKvClient implements KvClient {

  private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** Builds the request for a partition at an epoch. */
  private interface Request {
    byte[] encode(int partition, long epoch);
  }

  private final Supplier<PartitionAssignment> tables;
  private final Function<NodeId, String> addresses;
  private final Duration requestTimeout;
  private final SharedSecret secret;
  private final long retryBudgetNanos;
  private final AtomicReference<PartitionAssignment> table = new AtomicReference<>();
  private final NodeConnectionPool pool;
  private final KeySpreading spreading;
  /** Which sub-key a spread write goes to, given the number of ways: random but in tests. */
  private final java.util.function.IntUnaryOperator subKeyChoice;
  private final ScanCoverage scanCoverage;
  private volatile boolean closed;

  RoutingKvClient(KvClient.Builder b) {
    this.spreading = new KeySpreading(b.spread,
        java.util.concurrent.ThreadLocalRandom.current().nextLong(), b.wallMillis);
    this.subKeyChoice = b.subKeyChoice;
    this.tables = b.tables;
    this.addresses = b.addresses;
    this.requestTimeout = b.requestTimeout;
    this.secret = b.secret;
    this.retryBudgetNanos = b.retryBudget.toNanos();
    this.pool = new NodeConnectionPool(requestTimeout, secret);
    this.scanCoverage = b.scanCoverage;
    offer(requireNonNull(tables.get(), "the table source returned null"));
  }

  @Override
  public byte[] get(byte[] key) {
    requireNonNull(key, "key");
    KeySpreading.Spread spread = spreading.isEmpty() ? null : spreading.of(key);
    return spread == null ? read(key) : spreadGet(key, spread);
  }

  private byte[] read(byte[] key) {
    return route(Op.GET, key, (p, e) -> NodeConnection.request(Wire.GET, p, e).bytes(key)
        .toBytes()).value();
  }

  @Override
  public void put(byte[] key, byte[] value) {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    KeySpreading.Spread spread = spreading.isEmpty() ? null : spreading.of(key);
    if (spread != null) {
      // what the nodes are sent: the sub-key and the stamped value
      String tooLarge = KvLimits.problem("put of a spread key (its sub-key adds "
          + KeySpreading.KEY_EXTRA + " bytes, its stamp " + KeySpreading.VALUE_EXTRA + ")",
          key.length + KeySpreading.KEY_EXTRA, value.length + KeySpreading.VALUE_EXTRA);
      if (tooLarge != null) {
        throw new IllegalArgumentException(tooLarge);
      }
      spreadPut(key, value, spread);
      return;
    }
    KvLimits.check("put", key, value);
    route(Op.PUT, key,
        (p, e) -> NodeConnection.request(Wire.PUT, p, e).bytes(key).bytes(value).toBytes());
  }

  @Override
  public boolean cas(byte[] key, byte[] expected, byte[] value) {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    if (!spreading.isEmpty() && spreading.of(key) != null) {
      throw new UnsupportedOperationException("compare-and-set of key 0x"
          + java.util.HexFormat.of().formatHex(key) + " is refused: the key is spread over"
          + " sub-keys (KvClient.Builder.spreadKey), and a compare-and-set needs one register");
    }
    KvLimits.check("compare-and-set", key, value);
    KvLimits.check("compare-and-set (its expected value)", key, expected);
    return cas(key, expected, value, Op.CAS).isOk();
  }

  private KvReply cas(byte[] key, byte[] expected, byte[] value, Op op) {
    return route(op, key, (p, e) -> NodeConnection.request(Wire.CAS, p, e).bytes(key)
        .bytes(expected).bytes(value).toBytes());
  }

  // ---------------------------------------------------------------- spread keys

  /**
   * The newest of the sub-keys' values; the key's own value (from before it was spread) when
   * no sub-key has one. One read per sub-key and one of the key, one after another.
   */
  private byte[] spreadGet(byte[] key, KeySpreading.Spread spread) {
    KeySpreading.Stamped newest = newestSubKey(key, spread.ways());
    return newest != null ? newest.value() : read(key);
  }

  private KeySpreading.Stamped newestSubKey(byte[] key, int ways) {
    KeySpreading.Stamped newest = null;
    for (int i = 0; i < ways; i++) {
      KeySpreading.Stamped s = KeySpreading.decode(key, i, read(KeySpreading.subKey(key, i)));
      if (s != null) {
        spreading.observe(s.stamp());
        if (s.newerThan(newest)) {
          newest = s;
        }
      }
    }
    return newest;
  }

  /**
   * Writes one sub-key, chosen at random, by compare-and-set so that no sub-key ever goes back
   * to an older stamp: a sub-key that already holds a newer write keeps it (this write is then
   * ordered before that one, and is done). LINEARIZABLE first reads every sub-key and stamps
   * the write above all of them.
   */
  private void spreadPut(byte[] key, byte[] value, KeySpreading.Spread spread) {
    if (spread.order() == SpreadWrites.LINEARIZABLE) {
      newestSubKey(key, spread.ways()); // observes every stamp: ours is above them all
    }
    int index = subKeyChoice.applyAsInt(spread.ways());
    byte[] sub = KeySpreading.subKey(key, index);
    byte[] current = read(sub);
    KeySpreading.Stamped seen = KeySpreading.decode(key, index, current);
    if (seen != null) {
      spreading.observe(seen.stamp());
    }
    // Stamped after reading the sub-key: a write is ordered after whatever it found there, so
    // only a write that lands on the sub-key meanwhile (concurrent with this one) supersedes it.
    KeySpreading.Stamped mine = new KeySpreading.Stamped(spreading.nextStamp(),
        spreading.writer(), value);
    byte[] encoded = spreading.encode(mine.stamp(), value);
    while (true) {
      KeySpreading.Stamped held = KeySpreading.decode(key, index, current);
      if (held != null) {
        spreading.observe(held.stamp());
        if (held.newerThan(mine)) {
          return; // a newer write is there: ours is ordered before it, as if overwritten
        }
      }
      KvReply reply = cas(sub, current, encoded, Op.PUT);
      if (reply.isOk()) {
        return;
      }
      current = reply.value(); // CAS_FAILED: another write got there first; look at it
    }
  }

  @Override
  public ClusterLoad load() {
    if (closed) {
      throw new IllegalStateException("client is closed");
    }
    PartitionAssignment t = table.get();
    java.util.List<NodeLoad> views = new java.util.ArrayList<>();
    for (NodeId node : t.nodes()) {
      String address = addresses.apply(node);
      if (address == null) {
        throw new KvException("no address for " + node + ", a node of the table at epoch "
            + t.epoch(), false, null);
      }
      try {
        views.add(pool.withConnection(address, c -> LoadAnswer.of(okLoad(c.call(
            NodeConnection.request(Wire.LOAD, 0, 0).toBytes()), node))));
      } catch (IOException e) {
        throw new KvException("load view of " + node + " at " + address + ": "
            + e.getMessage(), false, e);
      }
    }
    return new ClusterLoad(t, views);
  }

  private static KvReply okLoad(KvReply reply, NodeId node) throws IOException {
    if (!reply.isOk()) {
      throw new IOException("LOAD refused by " + node + ": " + reply);
    }
    return reply;
  }

  /** The operations a client routes, and whether sending one again is harmless. */
  private enum Op {
    GET(true), PUT(false), CAS(false);

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
        KvReply reply = connection.call(request.encode(partition, t.epoch()));
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

  // ---------------------------------------------------------------- range scans

  /** Pages a scan asks each partition for: a round trip amortized, a node's lock held briefly. */
  static final int SCAN_PAGE = 256;

  @Override
  public ScanResult scan(byte[] from, byte[] to, int limit) {
    RangeScan.check(from, to, limit, "limit");
    RangeScan s = new RangeScan(pages, scanCoverage, from, to, Math.min(limit, SCAN_PAGE));
    java.util.List<KvEntry> entries = new java.util.ArrayList<>(Math.min(limit, SCAN_PAGE));
    while (entries.size() < limit && s.hasNext()) {
      entries.add(s.next());
    }
    boolean more = entries.size() == limit && s.hasMore();
    return new ScanResult(entries, more, s.partitionsTouched(), s.nodesTouched(), s.requests(),
        s.retries());
  }

  @Override
  public KvScanner scanner(byte[] from, byte[] to, int pageSize) {
    return new RangeScan(pages, scanCoverage, from, to, pageSize);
  }

  /** Pages from the partitions' current primaries, with the retries get and put have. */
  private final RangeScan.PageSource pages = new RangeScan.PageSource() {
    @Override
    public PartitionAssignment table() {
      return table.get();
    }

    @Override
    public RangeScan.Fetched fetch(PartitionAssignment planned, int partition, byte[] from,
        byte[] to, int max, java.util.concurrent.atomic.AtomicInteger retries) {
      return fetchPage(planned, partition, from, to, max, retries);
    }
  };

  private RangeScan.Fetched fetchPage(PartitionAssignment planned, int partition, byte[] from,
      byte[] to, int max, java.util.concurrent.atomic.AtomicInteger retries) {
    if (closed) {
      throw new IllegalStateException("client is closed");
    }
    long start = System.nanoTime();
    long backoff = MIN_BACKOFF_NANOS;
    KvReply last = null;
    Exception lastError = null;
    while (true) {
      PartitionAssignment t = table.get();
      if (!t.scheme().equals(planned.scheme())) {
        throw new RangeScan.StaleNumbering(); // the scan plans again from its cursor
      }
      NodeId owner = t.primary(partition);
      String address = addresses.apply(owner);
      try {
        NodeConnection connection = pool.borrow(address);
        KvReply reply = connection.call(ScanPage.request(partition, t.epoch(), from, to, max));
        pool.release(address, connection);
        switch (reply.status()) {
          case OK -> {
            return new RangeScan.Fetched(decode(reply, partition, owner), owner);
          }
          case MOVING, REDIRECT, UNAVAILABLE -> {
            last = reply;
            refresh();
          }
          default -> throw new KvException("scan of partition " + partition + " at " + owner
              + " failed: " + reply, false, null);
        }
      } catch (IOException e) {
        // a read changes nothing: an answer lost with a broken connection is asked again
        lastError = e;
        refresh();
      }
      retries.incrementAndGet();
      long elapsed = System.nanoTime() - start;
      if (elapsed + backoff > retryBudgetNanos) {
        throw new KvException("scan of partition " + partition + " not done within "
            + Duration.ofNanos(retryBudgetNanos) + "; last answer " + last, false, lastError);
      }
      try {
        TimeUnit.NANOSECONDS.sleep(backoff);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new KvException("scan interrupted before it was sent again", false, e);
      }
      backoff = Math.min(MAX_BACKOFF_NANOS, backoff * 2);
    }
  }

  private static ScanPage decode(KvReply reply, int partition, NodeId owner) {
    try {
      return ScanPage.of(reply);
    } catch (IOException e) {
      // not a lost answer but a wrong one: asking again would get the same
      throw new KvException("scan of partition " + partition + " at " + owner
          + " answered a malformed page: " + e.getMessage(), false, e);
    }
  }

  @Override
  public void close() {
    closed = true;
    pool.close();
  }
}
