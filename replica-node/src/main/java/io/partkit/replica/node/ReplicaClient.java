package io.partkit.replica.node;

import io.partkit.replica.Bytes;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Scan;
import io.partkit.replica.Numbering;
import io.partkit.replica.Replica;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.CopiesReceived;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.spi.HashSlots;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;

/**
 * A client of a Fixed Partitions cluster of {@link ReplicaNodeMain} processes, safe to use from
 * many threads at once. Keys and values are byte strings; the methods on longs are the same on
 * their eight big-endian bytes, for a store whose keys and values are all eight bytes (a long read
 * of a value of another length fails with {@link IllegalStateException}). A request goes to the
 * partition that holds its key in the control's table as this client last read it ({@link
 * Table#route}: each partition's number and modulus name its keys, so a table read after a split
 * routes the moved keys to the new partition), to that partition's primary. The table is asked
 * for when first needed and again after a refusal (a primary that split refuses the keys it no
 * longer holds), a timeout or a connection that fails.
 *
 * <p>Outcomes are honest: {@link Outcome#OK} took effect; {@link Outcome#FAIL} did not and never
 * will (a refusal, a connection that could not be made, a CAS that found another value: {@link
 * Result#mismatch}); {@link Outcome#UNKNOWN} may have (no answer within the timeout, a connection
 * lost after the request was written, or a write a deposed primary could not finish). A refused
 * request is sent again, to the primary of a fresh table, while the timeout allows: it surely did
 * not take effect. Nothing else is retried, but for the questions that change nothing (the
 * control's table, a node's load view or listing of its partitions): one that fails on a pooled
 * connection that served before, which the peer's restart since may have broken, is asked again
 * on a new one.
 *
 * <p>Threads. What the threads of one client share: the control's table as last read (one
 * thread reads a fresh one while the others that need it wait for it, each within its own
 * timeout; a thread whose request was refused forgets only the table it routed by, never a
 * fresher one another thread read meanwhile), the connections (a pool per node and per control,
 * at most {@link Builder#connectionsPerNode} open to each, idle ones reused; {@link
 * ClientPool}) and the numbers that pair answers with requests. What is each call's own: its
 * timeout, which starts when it is called (waiting for a table or for a free connection counts
 * in it), its retries, and the connection it sends on: a connection carries one call's request
 * at a time, from the request to its answer, and goes back to the pool only once that answer came
 * whole (one that failed or timed out is closed), so no call ever reads another's answer. Calls
 * from different threads are concurrent requests, and the cluster orders them as it orders any
 * clients' (each linearizable). {@link #close} closes the idle connections and each lent one as
 * it comes back; a call after it fails ({@link Outcome#FAIL}, nothing sent).
 *
 * <p>{@link #scan} reads a range of keys from every partition (the hash numbering scatters
 * neighbouring keys), one partition's page at a time, and merges them in key order. Each page is
 * linearizable on its own (served as a read); the scan as a whole is not an atomic snapshot across
 * partitions, nor across the pages of one partition. {@link #scanner} reads a range lazily, page
 * by page as it is iterated, through failovers and splits ({@link ReplicaScanner} says what it
 * sees).
 *
 * <p>Options of the {@link Builder}: the timeout, the secret, the connections per node, and
 * spread keys ({@link Builder#spreadKey}: a hot key's writes spread over sub-keys). {@link
 * #partitions} asks one node which partitions it holds and how each stands there.
 *
 * <p>Sizes: a key is at most {@link #MAX_KEY_BYTES}, a value (and a CAS's expected value) at most
 * {@link #MAX_VALUE_BYTES}. A larger one is refused before anything is sent, and a node refuses
 * one that reaches it anyway (a definite {@link Outcome#FAIL} naming the limit, not retried).
 */
public final class ReplicaClient implements AutoCloseable {

  /**
   * The largest key a node takes, in bytes: 64 KiB. Larger keys are refused by the client and
   * by the node.
   */
  public static final int MAX_KEY_BYTES = SizeLimits.MAX_KEY_BYTES;

  /**
   * The largest value a node takes, in bytes: 8,323,072 (8 MiB - 64 KiB), so that a CAS of two
   * such values and the largest key fits a frame, and each write fits a log record, with room
   * for their numbers (why: {@code SizeLimits}). Larger values are refused by the client and by
   * the node.
   */
  public static final int MAX_VALUE_BYTES = SizeLimits.MAX_VALUE_BYTES;

  /**
   * What became of a request.
   *
   * @param value a GET's value (null: absent)
   * @param mismatch a CAS that found another value than the expected one (an answer, not a
   *     refusal)
   * @param why why it failed or is unknown
   */
  public record Result(Outcome outcome, Long value, boolean mismatch, String why) {}

  /** A key and its value. */
  public record Entry(long key, long value) {}

  /**
   * What became of a request on byte strings: as {@link Result}, the value a GET's (null: absent).
   * Equal by the arrays' identity, as records of arrays are.
   */
  public record BytesResult(Outcome outcome, byte[] value, boolean mismatch, String why) {}

  /** A key and its value, as byte strings. */
  public record BytesEntry(byte[] key, byte[] value) {}

  /**
   * What became of a scan on byte strings.
   *
   * @param entries OK: keys and values in ascending unsigned order of the keys' bytes
   * @param more keys of the range remain after the last entry: scan again from {@link
   *     #nextFrom}, its key followed by a zero byte
   */
  public record BytesScanResult(Outcome outcome, List<BytesEntry> entries, boolean more,
      String why) {
    public BytesScanResult {
      entries = List.copyOf(entries);
    }

    /**
     * Where the next page starts, {@code scan(nextFrom(), to, limit)}: the smallest key after
     * the last entry (that key with a zero byte appended); null when nothing is left ({@link
     * #more} is false).
     */
    public byte[] nextFrom() {
      if (!more) {
        return null;
      }
      byte[] last = entries.get(entries.size() - 1).key();
      return java.util.Arrays.copyOf(last, last.length + 1);
    }
  }

  /**
   * What became of a scan.
   *
   * @param entries OK: keys and values in ascending order of the keys' eight big-endian bytes
   *     (unsigned: negative keys come last); empty otherwise
   * @param more keys of the range remain after the last entry: scan again from {@link
   *     #nextFrom}, its key plus one
   * @param why why it failed or is unknown
   */
  public record ScanResult(Outcome outcome, List<Entry> entries, boolean more, String why) {
    public ScanResult {
      entries = List.copyOf(entries);
    }

    /**
     * Where the next page starts, {@code scan(nextFrom(), to, limit)}: the key after the last
     * entry's, in unsigned order; null when nothing is left ({@link #more} is false, or the last
     * key is the largest there is).
     */
    public Long nextFrom() {
      if (!more) {
        return null;
      }
      long last = entries.get(entries.size() - 1).key();
      return last == -1L ? null : last + 1;
    }
  }

  /**
   * One partition of the control's table.
   *
   * @param partition its number
   * @param numbering which keys it holds
   * @param primary the node that serves it
   * @param epoch the epoch of its configuration
   */
  public record Row(int partition, Numbering numbering, int primary, long epoch) {
    public Row {
      java.util.Objects.requireNonNull(numbering, "numbering");
    }

    /** The modulus it is numbered at (0: it holds every key). */
    public long modulus() {
      return numbering.modulus();
    }

    /** Whether this partition holds {@code key}. */
    boolean holds(Bytes key) {
      return numbering.holds(partition, key);
    }
  }

  /**
   * The control's table as a client sees it.
   *
   * @param rows every partition, in partition order
   * @param unsettled what keeps the cluster from being settled, null when it is
   */
  public record Table(boolean settled, List<Row> rows, String unsettled) {
    public Table {
      rows = List.copyOf(rows);
    }

    /** How many partitions the table has. */
    public int partitions() {
      return rows.size();
    }

    /** The partition that holds {@code key}; empty when none does (not a table of a control). */
    public Optional<Row> route(long key) {
      return route(Bytes.ofLong(key));
    }

    /** The partition that holds {@code key}; empty when none does (not a table of a control). */
    public Optional<Row> route(byte[] key) {
      return route(Bytes.of(key));
    }

    private Optional<Row> route(Bytes key) {
      return rows.stream().filter(r -> r.holds(key)).findFirst();
    }
  }

  private static final long RETRY_PAUSE_MILLIS = 20;

  private final List<InetSocketAddress> controls;
  /** The control asked last, or next after a failure: the one that answered stays asked. */
  private final AtomicInteger controlIndex = new AtomicInteger();
  private final List<InetSocketAddress> nodes;
  private final long timeoutMillis;
  private final ClientPool pool;
  /** The table last read, null when it is to be read again before the next request. */
  private final AtomicReference<Table> table = new AtomicReference<>();
  /** Held by the one thread that reads a fresh table for every thread that needs one. */
  private final ReentrantLock tableReader = new ReentrantLock();
  private final AtomicLong nextId = new AtomicLong(1);
  /** The keys whose writes are spread over sub-keys, and this client's stamps. */
  private final KeySpreading spreading;

  /**
   * A client of the control at {@code control} and the nodes at {@code nodes} (node {@code i} at
   * index {@code i}), waiting at most {@code timeout} for each operation.
   */
  public ReplicaClient(InetSocketAddress control, List<InetSocketAddress> nodes,
      Duration timeout) {
    this(List.of(control), nodes, timeout);
  }

  /**
   * A client of the controls at {@code controls}, of which one leads (the others do not listen),
   * and the nodes at {@code nodes}: a table request that cannot reach one control goes to the
   * next.
   *
   * @throws IllegalArgumentException when {@code controls} is empty
   */
  public ReplicaClient(List<InetSocketAddress> controls, List<InetSocketAddress> nodes,
      Duration timeout) {
    this(controls, nodes, timeout, null);
  }

  /**
   * A client as {@link #ReplicaClient(List, List, Duration)} that proves the cluster's {@code
   * secret} to every node and control that asks for it (null: none; a node that asks then
   * refuses this client, a definite failure that names the missing secret).
   *
   * @throws IllegalArgumentException when {@code controls} is empty
   */
  public ReplicaClient(List<InetSocketAddress> controls, List<InetSocketAddress> nodes,
      Duration timeout, SharedSecret secret) {
    this(builder(controls, nodes).timeout(timeout).secret(secret));
  }

  private ReplicaClient(Builder b) {
    if (b.controls.isEmpty()) {
      throw new IllegalArgumentException("a client needs the address of at least one control");
    }
    this.controls = List.copyOf(b.controls);
    this.nodes = List.copyOf(b.nodes);
    this.timeoutMillis = b.timeout.toMillis();
    this.pool = new ClientPool(b.connectionsPerNode, b.secret);
    this.spreading = new KeySpreading(b.spread, ThreadLocalRandom.current().nextLong(),
        b.wallMillis, b.subKeyChoice);
  }

  /**
   * A builder of a client of the controls at {@code controls} (one leads; the others do not
   * listen) and the nodes at {@code nodes} (node {@code i} at index {@code i}), with a timeout
   * of 2 seconds per operation, no secret and 16
   * connections per node at most.
   */
  public static Builder builder(List<InetSocketAddress> controls, List<InetSocketAddress> nodes) {
    return new Builder(controls, nodes);
  }

  /** How a {@link ReplicaClient} is made: {@link ReplicaClient#builder}. */
  public static final class Builder {
    private final List<InetSocketAddress> controls;
    private final List<InetSocketAddress> nodes;
    private Duration timeout = Duration.ofSeconds(2);
    private SharedSecret secret;
    private int connectionsPerNode = ClientPool.DEFAULT_PER_ENDPOINT;
    private final Map<Bytes, KeySpreading.Spread> spread = KeySpreading.table();
    private LongSupplier wallMillis = System::currentTimeMillis;
    private IntUnaryOperator subKeyChoice = ways -> ThreadLocalRandom.current().nextInt(ways);

    private Builder(List<InetSocketAddress> controls, List<InetSocketAddress> nodes) {
      this.controls = List.copyOf(controls);
      this.nodes = List.copyOf(nodes);
    }

    /**
     * How long each operation waits at most, from its call to its answer, retries included.
     *
     * @throws IllegalArgumentException when not positive
     */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("a client's timeout must be positive: " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /** The cluster's shared secret, proven to every node and control that asks (null: none). */
    public Builder secret(SharedSecret secret) {
      this.secret = secret;
      return this;
    }

    /**
     * How many connections the client opens to one node (and to one control) at most, shared
     * by its threads: a call that finds them all lent waits for one within its timeout. A node
     * takes 256 connections from all its peers and clients together.
     *
     * @throws IllegalArgumentException when below 1
     */
    public Builder connectionsPerNode(int connections) {
      if (connections < 1) {
        throw new IllegalArgumentException("a client needs at least 1 connection per node, got "
            + connections);
      }
      this.connectionsPerNode = connections;
      return this;
    }

    /**
     * Spreads a hot key's writes over {@code ways} sub-keys, ordered {@link
     * SpreadWrites#LAST_WRITER_WINS}: see {@link #spreadKey(byte[], int, SpreadWrites)}.
     */
    public Builder spreadKey(byte[] key, int ways) {
      return spreadKey(key, ways, SpreadWrites.LAST_WRITER_WINS);
    }

    /**
     * Spreads the writes of the long key {@code key} (its eight big-endian bytes) over {@code
     * ways} sub-keys: see {@link #spreadKey(byte[], int, SpreadWrites)}.
     */
    public Builder spreadKey(long key, int ways, SpreadWrites order) {
      return spreadKey(Bytes.ofLong(key).toArray(), ways, order);
    }

    /**
     * Spreads a hot key's writes over {@code ways} sub-keys: a mitigation for a key whose writes
     * overload its partition (a hot key in the nodes' load view, {@link NodeLoad#hotKeys}). The
     * sub-keys hash to other partitions, so each takes about 1/{@code ways} of the key's
     * writes; a read asks every sub-key and returns the newest value ({@link KeySpreading} has
     * the layout, which is persisted format).
     *
     * <p>What it costs: a read of the key becomes {@code ways} requests, one after another
     * ({@code ways + 1} while no sub-key has a value), so a key hot by its reads gets worse, not
     * better; a write becomes a read and a compare-and-set of one sub-key ({@code ways + 2}
     * requests in all with {@link SpreadWrites#LINEARIZABLE}), all within the client's timeout;
     * a compare-and-set of the key is refused ({@link UnsupportedOperationException}); with
     * {@link SpreadWrites#LAST_WRITER_WINS} the key is no longer linearizable across clients
     * (see there). A value written must leave room for the stamp: at most {@link
     * ReplicaClient#MAX_VALUE_BYTES} - {@value KeySpreading#VALUE_EXTRA} bytes. Every client of
     * the cluster must spread the same keys the same way: a client that does not reads and
     * writes the key itself, which spreading clients read only until a sub-key has a value. A
     * value written before the key was spread stays readable until the first spread write; to
     * stop spreading, write the key's value with spreading on, then turn it off on every client
     * and write it again. A scan returns the sub-keys as they are stored, stamps and all.
     *
     * @param ways how many sub-keys, {@value KeySpreading#MIN_WAYS}..{@value
     *     KeySpreading#MAX_WAYS}
     * @throws IllegalArgumentException when {@code ways} is out of range, or the key is empty,
     *     spread already, itself a sub-key, or too long for its sub-keys to fit the key limit
     */
    public Builder spreadKey(byte[] key, int ways, SpreadWrites order) {
      java.util.Objects.requireNonNull(key, "key");
      java.util.Objects.requireNonNull(order, "order");
      KeySpreading.check(spread, key, ways);
      spread.put(Bytes.of(key.clone()), new KeySpreading.Spread(ways, order));
      return this;
    }

    /** The wall clock of the stamps of spread writes (tests give a skewed one). */
    Builder wallClockForTest(LongSupplier millis) {
      this.wallMillis = java.util.Objects.requireNonNull(millis, "millis");
      return this;
    }

    /** Which sub-key each spread write goes to, from the number of ways (tests: a fixed one). */
    Builder subKeyChoiceForTest(IntUnaryOperator choice) {
      this.subKeyChoice = java.util.Objects.requireNonNull(choice, "choice");
      return this;
    }

    /**
     * The client.
     *
     * @throws IllegalArgumentException when there is no control
     */
    public ReplicaClient build() {
      return new ReplicaClient(this);
    }
  }

  /** Reads {@code key}. */
  public Result get(long key) {
    return asLongs(call(Kind.GET, Bytes.ofLong(key), null, null));
  }

  /** Writes {@code value} to {@code key}. */
  public Result put(long key, long value) {
    return asLongs(call(Kind.PUT, Bytes.ofLong(key), null, Bytes.ofLong(value)));
  }

  /**
   * Sets {@code key} to {@code value} if it holds {@code expected} (null: absent).
   *
   * @throws UnsupportedOperationException when the key is spread ({@link Builder#spreadKey}):
   *     nothing was sent
   */
  public Result cas(long key, Long expected, long value) {
    return asLongs(call(Kind.CAS, Bytes.ofLong(key),
        expected == null ? null : Bytes.ofLong(expected), Bytes.ofLong(value)));
  }

  /**
   * Reads {@code key}.
   *
   * @throws IllegalArgumentException when {@code key} is over {@link #MAX_KEY_BYTES}
   */
  public BytesResult get(byte[] key) {
    return checked(Kind.GET, key, null, null);
  }

  /**
   * Writes {@code value} to {@code key}.
   *
   * @throws IllegalArgumentException when {@code key} is over {@link #MAX_KEY_BYTES} or {@code
   *     value} over {@link #MAX_VALUE_BYTES} (a spread key's, with its stamp); nothing was sent
   */
  public BytesResult put(byte[] key, byte[] value) {
    return checked(Kind.PUT, key, null, value);
  }

  /**
   * Sets {@code key} to {@code value} if it holds {@code expected} (null: absent).
   *
   * @throws IllegalArgumentException when {@code key} is over {@link #MAX_KEY_BYTES}, or {@code
   *     expected} or {@code value} over {@link #MAX_VALUE_BYTES}; nothing was sent
   * @throws UnsupportedOperationException when the key is spread ({@link Builder#spreadKey}):
   *     nothing was sent
   */
  public BytesResult cas(byte[] key, byte[] expected, byte[] value) {
    return checked(Kind.CAS, key, expected, value);
  }

  private BytesResult checked(Kind kind, byte[] key, byte[] expected, byte[] value) {
    SizeLimits.check(kind, key, expected, value);
    return unchecked(kind, key, expected, value);
  }

  /**
   * A request as {@link #get}, {@link #put} or {@link #cas} make it, sent whatever its sizes: for
   * a test of the node's own check, as a client of another build would send it.
   */
  BytesResult unchecked(Kind kind, byte[] key, byte[] expected, byte[] value) {
    return call(kind, Bytes.of(key), expected == null ? null : Bytes.of(expected),
        value == null ? null : Bytes.of(value));
  }

  private static Result asLongs(BytesResult r) {
    Long value = r.value() == null ? null : Bytes.of(r.value()).toLong();
    return new Result(r.outcome(), value, r.mismatch(), r.why());
  }

  /**
   * The first {@code limit} keys in {@code [from, to)} ({@code to} null: no end) in the order of
   * their eight big-endian bytes, with their values, from every partition of the table that may
   * hold keys of the range. Each partition is asked for pages until it has given {@code limit}
   * keys or has no more, then the pages are merged; a table of key ranges is asked only where
   * its ranges meet the scan's, in key order, each range for what the earlier ones left of the
   * limit and one more (so that {@code more} is exact), and not past the range that fills it. A
   * refused page (a failover, a split under way) starts the scan again on a fresh table while
   * the timeout allows. Not an atomic snapshot (see the class): a key written
   * during the scan may or may not be in it.
   *
   * @throws IllegalArgumentException when {@code limit} is below 1 or {@code from} is after
   *     {@code to}
   */
  public ScanResult scan(long from, Long to, int limit) {
    if (to != null && Long.compareUnsigned(from, to) > 0) {
      throw new IllegalArgumentException("a scan's from " + Long.toUnsignedString(from)
          + " is after its to " + Long.toUnsignedString(to) + " (keys compare unsigned)");
    }
    BytesScanResult r = scan(Bytes.ofLong(from), to == null ? null : Bytes.ofLong(to), limit);
    List<Entry> entries = new ArrayList<>(r.entries().size());
    for (BytesEntry e : r.entries()) {
      entries.add(new Entry(Bytes.of(e.key()).toLong(), Bytes.of(e.value()).toLong()));
    }
    return new ScanResult(r.outcome(), entries, r.more(), r.why());
  }

  /**
   * The first {@code limit} keys in {@code [from, to)} ({@code to} null: no end) in the unsigned
   * order of their bytes, with their values, from every partition of the table: as {@link
   * #scan(long, Long, int)}, on byte strings.
   *
   * @throws IllegalArgumentException when {@code limit} is below 1 or {@code from} is after
   *     {@code to}
   */
  public BytesScanResult scan(byte[] from, byte[] to, int limit) {
    return scan(Bytes.of(from), to == null ? null : Bytes.of(to), limit);
  }

  private BytesScanResult scan(Bytes from, Bytes to, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("a scan's limit must be at least 1, got " + limit);
    }
    if (to != null && from.compareTo(to) > 0) {
      throw new IllegalArgumentException("a scan's from " + from + " is after its to " + to
          + " (keys compare as unsigned bytes)");
    }
    long deadline = deadline();
    BytesScanResult last = new BytesScanResult(Outcome.FAIL, List.of(), false,
        "no attempt within the timeout");
    while (System.nanoTime() < deadline) {
      Table t;
      try {
        t = cachedTable(deadline);
      } catch (IOException e) {
        return new BytesScanResult(Outcome.FAIL, List.of(), false,
            "no table from the control: " + e);
      }
      TreeMap<Bytes, Bytes> merged = new TreeMap<>();
      boolean more = false;
      String refused = null;
      Optional<List<Row>> inOrder = inKeyOrder(t, from, to);
      for (Row row : inOrder.orElse(t.rows())) {
        // in key order, a partition's keys all come after the earlier ones': it is asked only
        // for what the limit leaves, and one more to know whether any remain
        int want = inOrder.isPresent() ? limit + 1 - merged.size() : limit;
        if (want <= 0) {
          break;
        }
        PartitionScan part = scanPartition(t, row, from, to, want, deadline);
        if (part.failure != null && part.failure.outcome() == Outcome.UNKNOWN) {
          return part.failure;
        }
        if (part.failure != null) {
          refused = part.failure.why();
          break;
        }
        merged.putAll(part.entries);
        more |= part.more;
      }
      if (refused == null) {
        more |= merged.size() > limit;
        List<BytesEntry> entries = new ArrayList<>(Math.min(limit, merged.size()));
        for (Map.Entry<Bytes, Bytes> e : merged.entrySet()) {
          if (entries.size() == limit) {
            break;
          }
          entries.add(new BytesEntry(e.getKey().toArray(), e.getValue().toArray()));
        }
        return new BytesScanResult(Outcome.OK, entries, more, null);
      }
      forget(t);
      last = new BytesScanResult(Outcome.FAIL, List.of(), false, refused);
      pause(deadline);
    }
    return last;
  }

  /**
   * A lazy scan of {@code [from, to)} ({@code to} null: no end), read as it is iterated, in
   * pages of at most {@code pageSize} entries from each partition (and at most {@link
   * Replica#PAGE_ENTRIES}, about 1 MiB): the keys in ascending unsigned order of their bytes
   * (of longs: their eight big-endian bytes) with their values. Over hashed keys the first key
   * costs a page of every partition, each refilled only once its keys are wanted; over key
   * ranges only the partitions whose range meets the scan's are read, one after another, in key
   * order. What a scan sees under concurrent writes, failovers and splits: {@link
   * ReplicaScanner}. An empty range ({@code from} equal to {@code to}) asks nothing.
   *
   * @throws NullPointerException when {@code from} is null (the empty key is the first)
   * @throws IllegalArgumentException when {@code pageSize} is below 1 or {@code from} is after
   *     {@code to}
   */
  public ReplicaScanner scanner(byte[] from, byte[] to, int pageSize) {
    return new RangeScanner(pages, from, to, pageSize);
  }

  /** A scanner's pages: from each partition's primary, with this client's table and retries. */
  private final RangeScanner.PageSource pages = new RangeScanner.PageSource() {
    @Override
    public Table table() {
      try {
        return cachedTable(deadline());
      } catch (IOException e) {
        throw new ScanFailedException("no table from the control within " + timeoutMillis
            + " ms: " + e);
      }
    }

    @Override
    public RangeScanner.Fetched fetch(Table planned, int partition, Bytes from, Bytes to,
        int max, AtomicInteger retries) {
      return fetchPage(planned, partition, from, to, max, retries);
    }
  };

  /**
   * A page of {@code partition} from its primary in the table, asked again, at the primary of a
   * fresh table, while refused or unanswered within the timeout: a read changes nothing.
   */
  private RangeScanner.Fetched fetchPage(Table planned, int partition, Bytes from, Bytes to,
      int max, AtomicInteger retries) {
    long deadline = deadline();
    String last = "no attempt within the timeout";
    for (int attempt = 0; System.nanoTime() < deadline; attempt++) {
      if (attempt > 0) {
        retries.incrementAndGet();
        pause(deadline);
      }
      Table t;
      try {
        t = cachedTable(deadline);
      } catch (ClientPool.Closed e) {
        throw new ScanFailedException(e.getMessage());
      } catch (IOException e) {
        last = "no table from the control: " + e;
        continue;
      }
      if (!RangeScanner.sameNumbering(planned, t)) {
        throw new RangeScanner.StaleNumbering();
      }
      Row row = null;
      for (Row r : t.rows()) {
        if (r.partition() == partition) {
          row = r;
        }
      }
      Page page;
      try {
        page = page(row, from, to, max, deadline);
      } catch (ClientPool.Closed e) {
        throw new ScanFailedException(e.getMessage());
      } catch (IOException e) {
        forget(t);
        last = "partition " + partition + " on node " + row.primary() + ": " + e;
        continue;
      }
      if (page.outcome() == Outcome.OK) {
        return new RangeScanner.Fetched(page, row.primary());
      }
      forget(t);
      last = page.why();
    }
    throw new ScanFailedException("no page of partition " + partition + " within "
        + timeoutMillis + " ms: " + last);
  }

  /**
   * When every partition of {@code table} is a key range: those whose range meets {@code [from,
   * to)}, in the order of their keys, so that a scan asks only them and stops once it has its
   * keys. Empty when the keys are hashed (hash halves, a token ring), where any partition may hold
   * a key of any range.
   */
  static Optional<List<Row>> inKeyOrder(Table table, Bytes from, Bytes to) {
    List<Bytes[]> spans = new ArrayList<>();
    List<Row> rows = new ArrayList<>();
    for (Row row : table.rows()) {
      if (!(row.numbering() instanceof Numbering.KeySpans k)) {
        return Optional.empty();
      }
      Bytes[] span = k.span(row.partition());
      if ((to == null || span[0].compareTo(to) < 0)
          && (span[1] == null || from.compareTo(span[1]) < 0)) {
        spans.add(span);
        rows.add(row);
      }
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      order.add(i);
    }
    order.sort((a, b) -> spans.get(a)[0].compareTo(spans.get(b)[0]));
    return Optional.of(order.stream().map(rows::get).toList());
  }

  /** One partition's keys of a scan: its first {@code limit} of the range, or all it has. */
  private static final class PartitionScan {
    final TreeMap<Bytes, Bytes> entries = new TreeMap<>();
    boolean more;
    /** A refusal (FAIL) or no answer (UNKNOWN); null: the pages came. */
    BytesScanResult failure;
  }

  private PartitionScan scanPartition(Table t, Row row, Bytes from, Bytes to, int limit,
      long deadline) {
    PartitionScan part = new PartitionScan();
    Bytes next = from;
    while (true) {
      Page page;
      try {
        page = page(row, next, to, limit - part.entries.size(), deadline);
      } catch (IOException e) {
        forget(t);
        part.failure = new BytesScanResult(e instanceof SocketTimeoutException ? Outcome.UNKNOWN
            : Outcome.FAIL, List.of(), false, "partition " + row.partition() + " on node "
            + row.primary() + ": " + e);
        return part;
      }
      if (page.outcome() != Outcome.OK) {
        part.failure = new BytesScanResult(Outcome.FAIL, List.of(), false, page.why());
        return part;
      }
      part.entries.putAll(page.entries());
      part.more = page.more();
      if (!page.more() || part.entries.size() >= limit) {
        return part;
      }
      // the next page starts just past the last key: its successor, the key and a zero byte
      next = successor(page.entries().lastKey()); // more: the page holds a key
    }
  }

  /**
   * One page of {@code row}'s keys in {@code [from, to)}, at most {@code limit}, asked of its
   * primary on a connection of the pool.
   *
   * @throws SocketTimeoutException when no answer came before {@code deadline}
   * @throws IOException when it could not be asked, or the connection failed
   */
  private Page page(Row row, Bytes from, Bytes to, int limit, long deadline) throws IOException {
    long id = nextId.getAndIncrement();
    Scan scan = new Scan(id, row.partition(), row.modulus(), from, to, limit);
    ClientConnection c = pool.borrow(nodeAddress(row.primary()), deadline);
    Message answer;
    try {
      answer = c.call(new Envelope(0, row.primary(), scan), id, deadline);
    } catch (IOException | RuntimeException e) {
      pool.discard(c);
      throw e;
    }
    pool.release(c);
    return (Page) answer;
  }

  /** The first key after {@code key} in unsigned byte order: it followed by a zero byte. */
  static Bytes successor(Bytes key) {
    return Bytes.of(Arrays.copyOf(key.toArray(), key.length() + 1));
  }

  /**
   * The control's table now.
   *
   * @throws IOException when the control cannot be asked within the timeout
   */
  public Table table() throws IOException {
    return askTable(deadline());
  }

  /** When an operation called now must be done: the client's timeout from now. */
  private long deadline() {
    return System.nanoTime() + timeoutMillis * 1_000_000;
  }

  private BytesResult call(Kind kind, Bytes key, Bytes expected, Bytes value) {
    KeySpreading.Spread spread = spreading.of(key);
    if (spread == null) {
      return call(kind, key, expected, value, deadline());
    }
    if (kind == Kind.GET) {
      return spreadGet(key, spread, deadline());
    }
    if (kind == Kind.PUT) {
      return spreadPut(key, value, spread, deadline());
    }
    throw new UnsupportedOperationException("compare-and-set of key " + KeySpreading.hex(
        key.toArray()) + " is refused: the key is spread over sub-keys"
        + " (ReplicaClient.Builder.spreadKey), and a compare-and-set needs one register");
  }

  // ---- spread keys

  /** The newest value over a spread key's sub-keys, or a failure to read one. */
  private record Newest(KeySpreading.Stamped stamped, BytesResult failure) {}

  /**
   * The newest of a spread key's sub-keys' values; the key's own value (written before it was
   * spread) when no sub-key has one. One read per sub-key, one after another.
   */
  private BytesResult spreadGet(Bytes key, KeySpreading.Spread spread, long deadline) {
    Newest n = newest(key, spread.ways(), deadline);
    if (n.failure() != null) {
      return n.failure();
    }
    if (n.stamped() != null) {
      return new BytesResult(Outcome.OK, n.stamped().value(), false, null);
    }
    return call(Kind.GET, key, null, null, deadline);
  }

  /** Reads every sub-key of {@code key}, observing their stamps, and takes the newest. */
  private Newest newest(Bytes key, int ways, long deadline) {
    byte[] k = key.toArray();
    KeySpreading.Stamped newest = null;
    for (int i = 0; i < ways; i++) {
      BytesResult r = call(Kind.GET, Bytes.of(KeySpreading.subKey(k, i)), null, null, deadline);
      if (r.outcome() != Outcome.OK) {
        return new Newest(null, new BytesResult(r.outcome(), null, false, "reading sub-key " + i
            + " of spread key " + KeySpreading.hex(k) + ": " + r.why()));
      }
      KeySpreading.Stamped s;
      try {
        s = KeySpreading.decode(k, i, r.value());
      } catch (KeySpreading.Foreign e) {
        return new Newest(null, new BytesResult(Outcome.FAIL, null, false, e.getMessage()));
      }
      if (s != null) {
        spreading.observe(s.stamp());
        if (s.newerThan(newest)) {
          newest = s;
        }
      }
    }
    return new Newest(newest, null);
  }

  /**
   * Writes one sub-key, chosen at random, by compare-and-set so that no sub-key ever goes back
   * to an older stamp: a sub-key that already holds a newer write keeps it (this write is then
   * ordered just before that one, as if overwritten by it, and is done). {@link
   * SpreadWrites#LINEARIZABLE} first reads every sub-key and stamps the write above them all.
   * Nothing is written before the compare-and-set, so a failure before it is a definite one.
   */
  private BytesResult spreadPut(Bytes key, Bytes value, KeySpreading.Spread spread,
      long deadline) {
    byte[] k = key.toArray();
    byte[] v = value.toArray();
    if (v.length + KeySpreading.VALUE_EXTRA > MAX_VALUE_BYTES) {
      throw new IllegalArgumentException("put of spread key " + KeySpreading.hex(k) + ": a value"
          + " of " + v.length + " bytes with its stamp (" + KeySpreading.VALUE_EXTRA + " bytes)"
          + " is over the limit of " + MAX_VALUE_BYTES + " bytes (ReplicaClient.MAX_VALUE_BYTES)");
    }
    if (spread.order() == SpreadWrites.LINEARIZABLE) {
      Newest n = newest(key, spread.ways(), deadline); // observes every stamp: ours is above
      if (n.failure() != null) {
        return notWritten(n.failure().why());
      }
    }
    int index = spreading.choose(spread.ways());
    Bytes sub = Bytes.of(KeySpreading.subKey(k, index));
    BytesResult read = call(Kind.GET, sub, null, null, deadline);
    if (read.outcome() != Outcome.OK) {
      return notWritten("reading sub-key " + index + " of spread key " + KeySpreading.hex(k)
          + ": " + read.why());
    }
    byte[] current = read.value();
    KeySpreading.Stamped held;
    try {
      held = KeySpreading.decode(k, index, current);
    } catch (KeySpreading.Foreign e) {
      return notWritten(e.getMessage());
    }
    if (held != null) {
      spreading.observe(held.stamp());
    }
    // Stamped after reading the sub-key: the write is ordered after whatever it found there, so
    // only a write that lands on the sub-key meanwhile (concurrent with this one) supersedes it.
    KeySpreading.Stamped mine = new KeySpreading.Stamped(spreading.nextStamp(),
        spreading.writer(), v);
    Bytes encoded = Bytes.of(spreading.encode(mine.stamp(), v));
    while (true) {
      if (held != null && held.newerThan(mine)) {
        return new BytesResult(Outcome.OK, null, false, null); // ordered before the newer one
      }
      BytesResult cas = call(Kind.CAS, sub, current == null ? null : Bytes.of(current), encoded,
          deadline);
      if (cas.outcome() == Outcome.OK) {
        return new BytesResult(Outcome.OK, null, false, null);
      }
      if (cas.outcome() == Outcome.UNKNOWN || !cas.mismatch()) {
        return new BytesResult(cas.outcome(), null, false, "writing sub-key " + index
            + " of spread key " + KeySpreading.hex(k) + ": " + cas.why());
      }
      // another write got to the sub-key first: look at what it left
      read = call(Kind.GET, sub, null, null, deadline);
      if (read.outcome() != Outcome.OK) {
        return notWritten("reading sub-key " + index + " of spread key " + KeySpreading.hex(k)
            + " again: " + read.why());
      }
      current = read.value();
      try {
        held = KeySpreading.decode(k, index, current);
      } catch (KeySpreading.Foreign e) {
        return notWritten(e.getMessage());
      }
      if (held != null) {
        spreading.observe(held.stamp());
      }
    }
  }

  /** A spread write that wrote nothing: a definite failure, whatever the read's outcome. */
  private static BytesResult notWritten(String why) {
    return new BytesResult(Outcome.FAIL, null, false, why + "; nothing was written");
  }

  /** A request, sent again while refused until {@code deadline}. */
  private BytesResult call(Kind kind, Bytes key, Bytes expected, Bytes value, long deadline) {
    BytesResult last = new BytesResult(Outcome.FAIL, null, false,
        "no attempt within the timeout");
    int refusedBy = -1;
    while (System.nanoTime() < deadline) {
      Table t;
      Row route;
      try {
        t = cachedTable(deadline);
        route = route(t, key);
        if (route.primary() == refusedBy) {
          // the fresh table still names the node that refused: the change it refused for has
          // not reached the control's table yet; a new primary is asked at once
          pause(deadline);
          forget(t);
          refusedBy = -1;
          continue;
        }
      } catch (IOException e) {
        return new BytesResult(Outcome.FAIL, null, false, "no table from the control: " + e);
      }
      int p = route.partition();
      int node = route.primary();
      long id = nextId.getAndIncrement();
      Request r = new Request(id, p, kind, key, expected, value);
      ClientConnection c;
      try {
        c = pool.borrow(nodeAddress(node), deadline);
      } catch (ClientPool.Closed e) {
        return new BytesResult(Outcome.FAIL, null, false, e.getMessage());
      } catch (IOException e) {
        // never sent: a definite failure, and perhaps another node is primary by now
        forget(t);
        last = new BytesResult(Outcome.FAIL, null, false, "cannot connect to node " + node
            + ": " + e);
        pause(deadline);
        continue;
      }
      Reply reply;
      try {
        reply = (Reply) c.call(new Envelope(0, node, r), id, deadline);
      } catch (IOException e) {
        pool.discard(c);
        forget(t);
        boolean timeout = e instanceof SocketTimeoutException;
        return new BytesResult(Outcome.UNKNOWN, null, false, (timeout ? "no answer from node "
            : "connection to node ") + node + (timeout ? " within " + timeoutMillis + " ms"
            : " lost: " + e));
      } catch (RuntimeException e) {
        pool.discard(c);
        throw e;
      }
      pool.release(c);
      if (reply.outcome() == Outcome.OK) {
        return new BytesResult(Outcome.OK, kind == Kind.GET && reply.value() != null
            ? reply.value().toArray() : null, false, null);
      }
      if (reply.outcome() == Outcome.UNKNOWN) {
        forget(t);
        return new BytesResult(Outcome.UNKNOWN, null, false, reply.why());
      }
      // The core phrases a CAS that found another value "expected X, found Y"; every other
      // failure is a refusal, which a fresh table may route around.
      if (kind == Kind.CAS && reply.why() != null && reply.why().startsWith("expected ")) {
        return new BytesResult(Outcome.FAIL, null, true, reply.why());
      }
      if (reply.why() != null && reply.why().contains(SizeLimits.OVER)) {
        return new BytesResult(Outcome.FAIL, null, false, reply.why()); // any node refuses it
      }
      forget(t);
      last = new BytesResult(Outcome.FAIL, null, false, reply.why());
      refusedBy = node;
    }
    return last;
  }

  /**
   * Node {@code node}'s load view, asked of it now: every partition it is primary of with what it
   * served of it since it became primary (requests by kind, bytes, keys, time to serve), and its
   * hottest keys (see {@link RequestMeters}).
   *
   * @throws IOException when the node has no address, cannot be reached or does not answer
   *     within the timeout
   */
  public NodeLoad nodeLoad(int node) throws IOException {
    try {
      return askNode(node, (c, id, deadline) -> c.load(id, deadline)).view();
    } catch (IOException e) {
      throw new IOException("no load view from node " + node + ": " + e.getMessage(), e);
    }
  }

  /**
   * What node {@code node} received from other nodes, since its process started, to create or
   * level its copies ({@link CopiesReceived}: snapshot pages, levels by name), asked of it now with
   * its load view; empty when the node is of an earlier build, which does not count it.
   *
   * @throws IOException when the node has no address, cannot be reached or does not answer
   *     within the timeout
   */
  public Optional<CopiesReceived> received(int node) throws IOException {
    try {
      return Optional.ofNullable(askNode(node, (c, id, deadline) -> c.load(id, deadline))
          .received());
    } catch (IOException e) {
      throw new IOException("no answer to a load request from node " + node + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * The partitions node {@code node} knows of, asked of it now, in partition order, each with
   * where it stands there ({@link Replica.Status}): the node's role, the epoch, primary and
   * backups of the configuration it knows, the level of that epoch and whether it is levelled,
   * whether it serves requests now (a primary levelled, not deposed, not draining), the name of
   * its copy's state, the last write and the keys its copy holds, the requests queued at it,
   * and whole copies under way to or from it. Partitions it holds no copy of but knows an epoch
   * of are listed too, {@link io.partkit.replica.Role#ABSENT}.
   *
   * <p>The node answers from its replica's state, on the thread that alone runs that replica,
   * between two of its inputs: one moment of that node, not of the cluster (another node may
   * know a newer epoch of the same partition, and the control's {@link #table} may name another
   * primary). Nothing is read from disk, and nothing changes.
   *
   * @throws IOException when the node has no address, cannot be reached or does not answer
   *     within the timeout, answers as another node (this client's addresses are not in node
   *     order), or is no data node of a build that lists (a control, or a node of a build
   *     before this request, closes the connection)
   */
  public List<Replica.Status> partitions(int node) throws IOException {
    return listing(node, -1).partitions();
  }

  /**
   * Where {@code partition} stands on node {@code node}, asked of it now, as {@link
   * #partitions} lists it: {@link io.partkit.replica.Role#ABSENT} at epoch 0 when the node
   * knows nothing of it.
   *
   * @throws IOException as {@link #partitions}
   * @throws IllegalArgumentException when {@code partition} is negative
   */
  public Replica.Status partitionStatus(int node, int partition) throws IOException {
    if (partition < 0) {
      throw new IllegalArgumentException("a partition's number is at least 0: " + partition);
    }
    List<Replica.Status> one = listing(node, partition).partitions();
    if (one.size() != 1 || one.get(0).partition() != partition) {
      throw new IOException("node " + node + " answered the status of partition " + partition
          + " with " + one);
    }
    return one.get(0);
  }

  private Frame.Partitions listing(int node, int partition) throws IOException {
    Frame.Partitions answer;
    try {
      answer = askNode(node, (c, id, deadline) -> c.partitions(id, partition, deadline));
    } catch (java.io.EOFException e) {
      throw new IOException("no partition listing from node " + node + ": it closed the"
          + " connection instead (it stopped, or it is a control or a node of a build before"
          + " listings)", e);
    } catch (IOException e) {
      throw new IOException("no partition listing from node " + node + ": " + e.getMessage(), e);
    }
    if (answer.node() != node) {
      throw new IOException("the node at " + nodes.get(node) + " answers as node "
          + answer.node() + ", not " + node + ": this client's addresses are not in node order");
    }
    return answer;
  }

  /** A question to a node or a control, asked on a connection of the pool. */
  @FunctionalInterface
  private interface Question<A> {
    A ask(ClientConnection c, long id, long deadline) throws IOException;
  }

  /**
   * The answer of node {@code node} to {@code question}, within the timeout.
   *
   * @throws IOException when the node has no address, cannot be reached or does not answer
   */
  private <A> A askNode(int node, Question<A> question) throws IOException {
    return ask(nodeAddress(node), question, deadline());
  }

  /**
   * The answer to {@code question}, asked of {@code address} on a connection of the pool. A
   * question changes nothing, so one that fails on a connection that served before (the peer
   * may have restarted since) is asked again on another; one that times out is not.
   */
  private <A> A ask(InetSocketAddress address, Question<A> question, long deadline)
      throws IOException {
    while (true) {
      ClientConnection c = pool.borrow(address, deadline);
      boolean used = c.used();
      A answer;
      try {
        answer = question.ask(c, nextId.getAndIncrement(), deadline);
      } catch (SocketTimeoutException e) {
        pool.discard(c);
        throw e;
      } catch (IOException e) {
        pool.discard(c);
        if (!used) {
          throw e;
        }
        continue;
      } catch (RuntimeException e) {
        pool.discard(c);
        throw e;
      }
      pool.release(c);
      return answer;
    }
  }


  /**
   * The load view of the cluster: the control's table, read now, and the view of every node it
   * names as a primary ({@link #nodeLoad}), so that {@link ClusterLoad#partitionLoads} gives each
   * partition's load as its primary measured it. The table becomes a {@link PartitionAssignment}
   * ({@link #assignment}).
   *
   * @throws IOException when the control or a primary cannot be read within the timeout
   * @throws IllegalStateException when the table's partitions are not numbered {@code 0..n-1}
   *     (a split of some partitions but not all): {@link io.partkit.spi.PartitionLoads} cannot
   *     describe it; read the nodes with {@link #nodeLoad}
   */
  public ClusterLoad load() throws IOException {
    Table t = askTable(deadline());
    table.set(t);
    PartitionAssignment assignment = assignment(t);
    List<NodeLoad> views = new ArrayList<>();
    for (int node : t.rows().stream().map(Row::primary).distinct().sorted().toList()) {
      views.add(nodeLoad(node));
    }
    return new ClusterLoad(assignment, views);
  }

  /**
   * The control's table as a {@link PartitionAssignment} for {@link ClusterLoad}: partition
   * {@code p}'s primary is the node {@code node-i} of the load views, and its epoch is the
   * table's newest (each partition has an epoch of its own; a primary's view at a newer one means
   * this table is out of date). Its scheme is {@link HashSlots}{@code (n)}, the replica's own
   * numbering of a table of {@code n} partitions ({@link Partitioning}); the load view reads only
   * its primaries and count.
   *
   * @throws IllegalStateException when the partitions are not numbered {@code 0..n-1}
   */
  static PartitionAssignment assignment(Table t) {
    List<List<NodeId>> primaries = new ArrayList<>();
    long epoch = 0;
    for (int i = 0; i < t.rows().size(); i++) {
      Row r = t.rows().get(i);
      if (r.partition() != i) {
        throw new IllegalStateException("the table's partitions are not numbered 0.."
            + (t.rows().size() - 1) + " (partition " + r.partition() + " at index " + i
            + "): a load view by partition number needs every partition split alike");
      }
      primaries.add(List.of(RequestMeters.nodeId(r.primary())));
      epoch = Math.max(epoch, r.epoch());
    }
    if (primaries.isEmpty()) {
      throw new IllegalStateException("the control's table has no partitions");
    }
    return PartitionAssignment.of("replica", epoch, 0, HashSlots.of(primaries.size()),
        primaries);
  }

  private static void pause(long deadline) {
    long left = (deadline - System.nanoTime()) / 1_000_000;
    try {
      Thread.sleep(Math.max(0, Math.min(RETRY_PAUSE_MILLIS, left)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The partition that holds {@code key} in {@code t}; the table forgotten when none does. */
  private Row route(Table t, Bytes key) throws IOException {
    Optional<Row> r = t.route(key);
    if (r.isEmpty()) {
      forget(t);
      throw new IOException("the control's table of " + t.partitions()
          + " partitions has none that holds key " + key);
    }
    return r.get();
  }

  /**
   * The table last read, or a fresh one when there is none: one thread asks the control while
   * the others that need a table wait for its answer, each no longer than its own deadline.
   *
   * @throws IOException when no control answers before {@code deadline}
   */
  private Table cachedTable(long deadline) throws IOException {
    Table t = table.get();
    if (t != null) {
      return t;
    }
    try {
      if (!tableReader.tryLock(Math.max(0, deadline - System.nanoTime()),
          TimeUnit.NANOSECONDS)) {
        throw new SocketTimeoutException("another thread's table request did not end within "
            + "the timeout");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for the control's table");
    }
    try {
      t = table.get();
      if (t == null) {
        t = askTable(deadline);
        table.set(t);
      }
      return t;
    } finally {
      tableReader.unlock();
    }
  }

  /**
   * Has the table be read again before the next request, unless it is no longer {@code seen}
   * (another thread read a fresher one meanwhile, which stays).
   */
  private void forget(Table seen) {
    table.compareAndSet(seen, null);
  }

  /**
   * The table of the first control that answers, starting from the one that answered last: each
   * is tried once, so a standby (which does not listen) costs a refused connection.
   */
  private Table askTable(long deadline) throws IOException {
    IOException last = null;
    for (int tried = 0; tried < controls.size() && System.nanoTime() < deadline; tried++) {
      int index = controlIndex.get();
      try {
        Frame.Table t = ask(controls.get(index), (c, id, d) -> c.table(id, d), deadline);
        return new Table(t.settled(), t.rows(), t.unsettled());
      } catch (ClientPool.Closed e) {
        throw e;
      } catch (IOException e) {
        last = e;
        // the next control, unless another thread moved on from this one already
        controlIndex.compareAndSet(index, (index + 1) % controls.size());
      }
    }
    throw last != null ? last : new IOException("no control asked within the timeout");
  }

  /**
   * The address of node {@code node}.
   *
   * @throws IOException when the table names a node this client has no address for
   */
  private InetSocketAddress nodeAddress(int node) throws IOException {
    if (node < 0 || node >= nodes.size()) {
      throw new IOException("the table names node " + node + ", which has no address");
    }
    return nodes.get(node);
  }

  /** The connections open now to node {@code node}, lent or idle: for tests. */
  int openConnections(int node) {
    return pool.open(nodes.get(node));
  }

  /**
   * Closes the idle connections, and each one lent to a call in flight as it comes back; every
   * call from here on fails without sending anything.
   */
  @Override
  public void close() {
    pool.close();
  }
}
