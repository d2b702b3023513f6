package io.partkit.strategy.tokenring;

import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import io.partkit.strategy.support.AbstractPartitioner;
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
final class TokenRingPartitioner extends AbstractPartitioner {

  /** Largest {@code vnodes} accepted (tokens per unit of weight). */
  static final int MAX_VNODES = 1024;

  /** Most tokens in one ring: 2^24, like {@link io.partkit.spi.HashSlots#MAX_COUNT}. */
  static final long MAX_TOKENS = 1 << 24;

  private final int vnodes;
  private final boolean zoneAware;
  private final TokenChooser chooser;

  TokenRingPartitioner(PartitionerConfig config, int vnodes, int replicas, boolean zoneAware,
      TokenChooser chooser) {
    super(TokenRingPartitionerProvider.NAME, config, replicas, null); // the scheme is the ring
    this.vnodes = vnodes;
    this.zoneAware = zoneAware;
    this.chooser = chooser;
  }

  /**
   * @throws IllegalArgumentException if the view would need more than 2^24 tokens
   */
  @Override
  protected PartitionAssignment compute(MembershipView view,
      Optional<PartitionAssignment> previous, int rf) {
    long tokens = view.totalWeight() * vnodes;
    if (tokens > MAX_TOKENS) {
      throw new IllegalArgumentException("a ring of total weight " + view.totalWeight() + " with "
          + vnodes + " vnodes needs " + tokens + " tokens; at most " + MAX_TOKENS
          + " are supported: lower vnodes");
    }
    Ring ring = chooser.choose(view, vnodes, previous.flatMap(TokenRingPartitioner::ringOf));
    TokenRanges scheme = TokenRanges.of(KeyHash.CASSANDRA_MURMUR3, ring.tokens());
    return assignment(view, scheme, new ReplicaWalk(ring, view, rf, zoneAware).all());
  }

  /** Any table that carries a ring ({@link #ringOf}), whichever strategy computed it. */
  @Override
  protected boolean buildsOn(PartitionAssignment previous) {
    return previous.scheme() instanceof TokenRanges ranges
        && ranges.keyHash() == KeyHash.CASSANDRA_MURMUR3;
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
        + replicationFactor() + ", zone-aware=" + zoneAware + "}";
  }
}
