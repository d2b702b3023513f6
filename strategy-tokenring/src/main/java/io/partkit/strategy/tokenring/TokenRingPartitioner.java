package io.partkit.strategy.tokenring;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import java.util.Optional;

/**
 * The token ring: tokens from a {@link TokenChooser}, keys to ranges by Cassandra's Murmur3
 * token and a binary search ({@link TokenRanges}), replicas by a clockwise {@link ReplicaWalk}.
 *
 * <p>Partition {@code i} of an assignment is the range ending at the {@code i}-th smallest token
 * and its primary owns that token: so the assignment itself carries the ring, and the next call
 * reads every member's tokens back from it ({@link #ringOf}). A previous assignment whose scheme
 * is not a {@link TokenRanges} over {@link KeyHash#CASSANDRA_MURMUR3} cannot be built on and is
 * treated as absent.
 */
final class TokenRingPartitioner implements Partitioner {

  /** Largest {@code vnodes} accepted (tokens per unit of weight). */
  static final int MAX_VNODES = 1024;

  /** Most tokens in one ring: 2^24, like {@link io.partkit.spi.HashSlots#MAX_COUNT}. */
  static final long MAX_TOKENS = 1 << 24;

  private final PartitionerConfig config;
  private final int vnodes;
  private final int replicas;
  private final boolean zoneAware;
  private final TokenChooser chooser;

  TokenRingPartitioner(PartitionerConfig config, int vnodes, int replicas, boolean zoneAware,
      TokenChooser chooser) {
    this.config = config;
    this.vnodes = vnodes;
    this.replicas = replicas;
    this.zoneAware = zoneAware;
    this.chooser = chooser;
  }

  @Override
  public String name() {
    return TokenRingPartitionerProvider.NAME;
  }

  @Override
  public PartitionerConfig config() {
    return config;
  }

  @Override
  public int replicationFactor() {
    return replicas;
  }

  /**
   * @throws IllegalArgumentException if the view is empty or would need more than 2^24 tokens
   */
  @Override
  public PartitionAssignment assign(MembershipView view, Optional<PartitionAssignment> previous) {
    requireNonNull(view, "view");
    requireNonNull(previous, "previous");
    if (view.isEmpty()) {
      throw new IllegalArgumentException("cannot assign tokens to an empty membership view");
    }
    long tokens = view.totalWeight() * vnodes;
    if (tokens > MAX_TOKENS) {
      throw new IllegalArgumentException("a ring of total weight " + view.totalWeight() + " with "
          + vnodes + " vnodes needs " + tokens + " tokens; at most " + MAX_TOKENS
          + " are supported: lower vnodes");
    }
    Ring ring = chooser.choose(view, vnodes, previous.flatMap(TokenRingPartitioner::ringOf));
    TokenRanges scheme = TokenRanges.of(KeyHash.CASSANDRA_MURMUR3, ring.tokens());
    int rf = Math.min(replicas, view.size());
    long epoch = previous.map(p -> p.epoch() + 1).orElse(1L);
    return PartitionAssignment.of(name(), epoch, view.version(), scheme,
        new ReplicaWalk(ring, view, rf, zoneAware).all());
  }

  /** The ring an assignment carries: token i is owned by the primary of partition i. */
  static Optional<Ring> ringOf(PartitionAssignment assignment) {
    if (!(assignment.scheme() instanceof TokenRanges ranges)
        || ranges.keyHash() != KeyHash.CASSANDRA_MURMUR3) {
      return Optional.empty();
    }
    NodeId[] owners = new NodeId[ranges.partitionCount()];
    for (int i = 0; i < owners.length; i++) {
      owners[i] = assignment.primary(i);
    }
    return Optional.of(new Ring(ranges.tokens(), owners));
  }

  @Override
  public String toString() {
    return "TokenRingPartitioner{tokens=" + chooser.name() + ", vnodes=" + vnodes + ", replicas="
        + replicas + ", zone-aware=" + zoneAware + "}";
  }
}
