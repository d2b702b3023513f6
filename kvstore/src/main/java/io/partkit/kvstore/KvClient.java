package io.partkit.kvstore;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
      KvSecret secret) throws IOException {
    try (KvNodeClient node = KvNodeClient.connect(hostAndPort, timeout, secret)) {
      return node.status(partition);
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
   */
  void put(byte[] key, byte[] value);

  /**
   * Sets {@code key} to {@code value} if it holds {@code expected} ({@code null}: absent).
   *
   * @return true if set, false if the key held something else
   * @throws KvException if no owner answered within the retry budget
   */
  boolean cas(byte[] key, byte[] expected, byte[] value);

  /**
   * The keys in {@code [from, to)} with their values, in unsigned byte order, at most
   * {@code limit} of them: for a table over {@link io.partkit.spi.KeyRanges}, whose partitions
   * are ranges of that order. The scan reads page after page from the primary of each range it
   * crosses, in order, each page routed, retried and confirmed like a {@link #get}; pages are
   * read one after another, so the result is not one snapshot: a key written during the scan
   * may or may not be in it. A range split or moved meanwhile is followed: every page is routed
   * by the key it starts at.
   *
   * @param from the first key (inclusive); null: from the smallest key
   * @param to the end (exclusive); null: to the last key
   * @param limit most entries returned, at least 1
   * @throws UnsupportedOperationException if the table is not over key ranges (hash
   *     partitioning scatters consecutive keys: there is no order to scan)
   * @throws IllegalArgumentException if {@code limit < 1} or {@code from} is above {@code to}
   * @throws KvException if a range's owner did not answer within the retry budget
   */
  List<Map.Entry<byte[], byte[]>> scan(byte[] from, byte[] to, int limit);

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
    KvSecret secret;

    Builder() {}

    /** The cluster's shared secret, proven to every node that asks for it ({@link KvSecret}). */
    public Builder secret(KvSecret secret) {
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
