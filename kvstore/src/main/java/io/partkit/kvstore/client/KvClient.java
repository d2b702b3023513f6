package io.partkit.kvstore.client;

import static java.util.Objects.requireNonNull;

import io.partkit.replica.node.access.SharedSecret;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.kvstore.load.LoadAnswer;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.ReceivedCopies;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The routing client: key -> partition -> primary owner by a cached partition table, over TCP.
 *
 * <p>It sends each request with its table's epoch. On MOVING it backs off (exponentially, capped)
 * and retries; on REDIRECT it refreshes its table and retries; both within a bounded budget,
 * after which the call fails with {@link KvException}. A newer table can also be pushed at any
 * time with {@link #offer} (wire it to {@code Coordinator.watch}).
 *
 * <p>Thread-safe: it keeps a small pool of connections per node.
 */
public interface KvClient extends AutoCloseable {

  /** A builder with a 5 s request timeout and a 15 s retry budget. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * One node's view of one partition (its state, epoch and key count), asked of that node
   * directly rather than routed: for operators and test harnesses that check each primary
   * serves what the table says. One connection, opened and closed by this call.
   *
   * @param hostAndPort the node's address, {@code host:port}
   * @param secret the shared secret the node was started with
   * @throws IOException if the node could not be reached or did not answer within
   *     {@code timeout}
   * @throws IllegalArgumentException if the address is not {@code host:port} or the timeout is
   *     not positive
   */
  static PartitionStatus partitionStatus(String hostAndPort, int partition, Duration timeout,
      SharedSecret secret) throws IOException {
    try (KvNodeClient node = KvNodeClient.connect(hostAndPort, timeout, secret)) {
      return node.status(partition);
    }
  }

  /**
   * One node's load view ({@link NodeLoad}), asked of that node directly. One connection,
   * opened and closed by this call.
   *
   * @param secret the shared secret the node was started with, or null for a node without one
   * @throws IOException if the node could not be reached or did not answer within
   *     {@code timeout}
   */
  static NodeLoad nodeLoad(String hostAndPort, Duration timeout, SharedSecret secret)
      throws IOException {
    try (TcpNodeClient node = new TcpNodeClient(Wire.parseAddress(hostAndPort), timeout,
        secret)) {
      return LoadAnswer.read(node);
    }
  }

  /**
   * What one node received from the others, since it started, to create copies of partitions it
   * did not hold ({@link ReceivedCopies}: entries, their bytes, partition copies completed),
   * asked of that node directly. One connection, opened and closed by this call.
   *
   * @param secret the shared secret the node was started with, or null for a node without one
   * @throws IOException if the node could not be reached or did not answer within
   *     {@code timeout}
   */
  static ReceivedCopies receivedCopies(String hostAndPort, Duration timeout, SharedSecret secret)
      throws IOException {
    try (TcpNodeClient node = new TcpNodeClient(Wire.parseAddress(hostAndPort), timeout,
        secret)) {
      return ReceivedCopies.read(node);
    }
  }

  /**
   * The value of {@code key}, or null when absent.
   *
   * @throws KvException if no owner answered within the retry budget
   */
  byte[] get(byte[] key);

  /**
   * Writes {@code key}; returns once the owner has it durably.
   *
   * @throws KvException if no owner accepted it within the retry budget
   * @throws IllegalArgumentException if the key or value is over {@link
   *     io.partkit.kvstore.KvLimits} (nothing is sent)
   */
  void put(byte[] key, byte[] value);

  /**
   * Sets {@code key} to {@code value} if it holds {@code expected} ({@code null}: absent).
   *
   * @return true if set, false if the key held something else
   * @throws KvException if no owner answered within the retry budget
   * @throws IllegalArgumentException if the key, expected or new value is over {@link
   *     io.partkit.kvstore.KvLimits} (nothing is sent)
   */
  boolean cas(byte[] key, byte[] expected, byte[] value);

  /**
   * The load view of every node of the cached table, one after another: per partition the
   * requests, bytes, keys and latency its node served, and each node's hottest keys. {@link
   * ClusterLoad#partitionLoads} turns it into the {@link io.partkit.spi.PartitionLoads} a
   * load-aware planner reads.
   *
   * @throws KvException if a node of the table could not be reached or refused
   */
  ClusterLoad load();

  /**
   * The entries with keys in {@code [from, to)}, in ascending unsigned byte order of their keys,
   * at most {@code limit} of them: {@code scan(nextFrom(), to, limit)} reads the next page
   * ({@link ScanResult#nextFrom}). The partitions are read one page at a time and the pages
   * merged; see {@link #scanner} for what a scan guarantees. An empty range ({@code from} equal
   * to {@code to}) sends no request.
   *
   * @param from the first key, inclusive (an empty array: the first key there is)
   * @param to the end, exclusive, or null for no upper bound
   * @throws NullPointerException if {@code from} is null
   * @throws IllegalArgumentException if {@code limit} is not positive, or {@code from} is after
   *     {@code to} in unsigned byte order
   * @throws KvException if a partition could not be read within the retry budget
   */
  ScanResult scan(byte[] from, byte[] to, int limit);

  /**
   * A lazy scan of {@code [from, to)} that reads pages of at most {@code pageSize} entries per
   * partition as it is iterated (as HBase's {@code ResultScanner} with a caching of
   * {@code pageSize}).
   *
   * <p>What a scan guarantees (it is not atomic across partitions, nor across one partition's
   * pages): keys come out strictly ascending, each at most once; every key that exists in the
   * range from the scan's start to its end is returned exactly once, even when its partition
   * moves to another node or the table is renumbered meanwhile; a key written during the scan
   * may or may not be returned; each value returned is one the key held at some moment during
   * the scan, acknowledged and durable (never a write that failed or a crash could take back).
   * Entries of one page were read together under the partition's lock, so they are a snapshot
   * of that partition's part of the range at one moment; nothing holds across pages.
   *
   * @throws NullPointerException if {@code from} is null
   * @throws IllegalArgumentException if {@code pageSize} is not positive, or {@code from} is
   *     after {@code to} in unsigned byte order
   */
  KvScanner scanner(byte[] from, byte[] to, int pageSize);

  /** Replaces the cached table if {@code table} is newer (a higher epoch); ignores it otherwise. */
  void offer(PartitionAssignment table);

  /** The cached table's epoch. */
  long tableEpoch();

  @Override
  void close();

  /** Configures a {@link KvClient}. */
  final class Builder {
    Supplier<PartitionAssignment> tables;
    Function<NodeId, String> addresses;
    Duration requestTimeout = Duration.ofSeconds(5);
    Duration retryBudget = Duration.ofSeconds(15);
    SharedSecret secret;
    /** Which partitions a scan asks; tests set an ordered fake ({@link ScanCoverage}). */
    ScanCoverage scanCoverage = ScanCoverage.DEFAULT;
    final java.util.Map<java.nio.ByteBuffer, KeySpreading.Spread> spread = KeySpreading.table();
    java.util.function.LongSupplier wallMillis = System::currentTimeMillis;
    java.util.function.IntUnaryOperator subKeyChoice =
        ways -> java.util.concurrent.ThreadLocalRandom.current().nextInt(ways);

    Builder() {}

    /**
     * Spreads a hot key's writes over {@code ways} sub-keys, ordered {@link
     * SpreadWrites#LAST_WRITER_WINS}: see {@link #spreadKey(byte[], int, SpreadWrites)}.
     */
    public Builder spreadKey(byte[] key, int ways) {
      return spreadKey(key, ways, SpreadWrites.LAST_WRITER_WINS);
    }

    /**
     * Spreads a hot key's writes over {@code ways} sub-keys: a mitigation for a key whose
     * writes overload its partition (a hot key in the nodes' load view, {@link NodeLoad}). The
     * sub-keys hash to other partitions, so each takes about 1/{@code ways} of the key's writes;
     * a read asks every sub-key and the key itself, and returns the newest value.
     *
     * <p>What it costs: a read of the key becomes {@code ways + 1} requests, one after
     * another (so a key that is hot by its reads gets worse, not better); a write becomes two
     * requests to one sub-key ({@code ways + 2} in all with {@link SpreadWrites#LINEARIZABLE});
     * a compare-and-set of the key is refused ({@link UnsupportedOperationException}); with
     * {@link SpreadWrites#LAST_WRITER_WINS} the key is no longer linearizable across clients
     * (see there). Every client of the cluster must spread the same keys the same way: a client
     * that does not reads and writes the key itself, which spreading clients read only until a
     * sub-key has a value. A value written before the key was spread stays readable until the
     * first spread write; to stop spreading, write the key's value with spreading on, then
     * turn it off on every client and write it again.
     *
     * @param ways how many sub-keys, 2..64
     * @throws IllegalArgumentException if {@code ways} is out of range, the key is empty, is
     *     spread already, or is itself a sub-key
     */
    public Builder spreadKey(byte[] key, int ways, SpreadWrites order) {
      requireNonNull(key, "key");
      requireNonNull(order, "order");
      KeySpreading.check(spread, key, ways);
      spread.put(java.nio.ByteBuffer.wrap(key.clone()), new KeySpreading.Spread(ways, order));
      return this;
    }

    /** The wall clock of the stamps of spread writes (tests give a skewed one). */
    Builder wallClockForTest(java.util.function.LongSupplier millis) {
      this.wallMillis = requireNonNull(millis, "millis");
      return this;
    }

    /** Which sub-key each spread write goes to, from the number of ways (tests: a fixed one). */
    Builder subKeyChoiceForTest(java.util.function.IntUnaryOperator choice) {
      this.subKeyChoice = requireNonNull(choice, "choice");
      return this;
    }

    /** Replaces how scans choose partitions (tests of the ordered path). */
    Builder scanCoverage(ScanCoverage coverage) {
      this.scanCoverage = requireNonNull(coverage, "coverage");
      return this;
    }

    /** The cluster's shared secret, proven to every node that asks for it. */
    public Builder secret(SharedSecret secret) {
      this.secret = requireNonNull(secret, "secret");
      return this;
    }

    /**
     * Where fresh tables come from (e.g. {@code () -> coordinator.table().orElseThrow()}): called
     * once at build time and again after every redirect.
     */
    public Builder tables(Supplier<PartitionAssignment> source) {
      this.tables = requireNonNull(source, "source");
      return this;
    }

    /** How to reach a node: its {@code host:port} (e.g. from the coordinator's membership). */
    public Builder addresses(Function<NodeId, String> resolver) {
      this.addresses = requireNonNull(resolver, "resolver");
      return this;
    }

    /**
     * How long one request waits for its answer.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder requestTimeout(Duration timeout) {
      requirePositive("request timeout", timeout);
      this.requestTimeout = timeout;
      return this;
    }

    /**
     * How long one call keeps retrying MOVING and REDIRECT answers and unreachable owners.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder retryBudget(Duration budget) {
      requirePositive("retry budget", budget);
      this.retryBudget = budget;
      return this;
    }

    /**
     * The client, with the table the source gives now.
     *
     * @throws IllegalStateException if {@link #tables} or {@link #addresses} was not set
     */
    public KvClient build() {
      if (tables == null || addresses == null) {
        throw new IllegalStateException("a KvClient needs tables(...) and addresses(...)");
      }
      return new RoutingKvClient(this);
    }

    private static void requirePositive(String what, Duration d) {
      requireNonNull(d, what);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive: " + d);
      }
    }
  }
}
