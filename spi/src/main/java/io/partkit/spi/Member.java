package io.partkit.spi;

import static java.util.Objects.requireNonNull;

/**
 * A cluster member as strategies see it: identity, where to reach it, how much it should hold
 * and where it sits.
 *
 * @param id stable identity (see {@link NodeId})
 * @param address how clients reach it ({@code host:port}); not used for placement, so a member
 *     that moves keeps its partitions
 * @param weight relative capacity, 1..{@value #MAX_WEIGHT}: a member of weight 2 should hold
 *     twice the data of one of weight 1
 * @param zone failure domain for replica spreading (availability zone, data center); empty
 *     when unknown
 * @param rack finer failure domain inside a zone; empty when unknown
 */
public record Member(NodeId id, String address, int weight, String zone, String rack) {

  /** Heaviest weight accepted; larger ratios are better expressed as separate members. */
  public static final int MAX_WEIGHT = 1_000;

  /**
   * @throws IllegalArgumentException if the weight is outside 1..{@value #MAX_WEIGHT}
   */
  public Member {
    requireNonNull(id, "id");
    requireNonNull(address, "address");
    requireNonNull(zone, "zone");
    requireNonNull(rack, "rack");
    if (weight < 1 || weight > MAX_WEIGHT) {
      throw new IllegalArgumentException(
          "weight of " + id + " must be in 1.." + MAX_WEIGHT + ": " + weight);
    }
  }

  /** A member of weight 1 with no address and no zone or rack labels. */
  public static Member of(String id) {
    return new Member(NodeId.of(id), "", 1, "", "");
  }

  /** A member of the given weight with no address and no labels. */
  public static Member weighted(String id, int weight) {
    return new Member(NodeId.of(id), "", weight, "", "");
  }

  /** A member of weight 1 in the given zone and rack. */
  public static Member located(String id, String zone, String rack) {
    return new Member(NodeId.of(id), "", 1, zone, rack);
  }

  /** This member with another address. */
  public Member withAddress(String newAddress) {
    return new Member(id, newAddress, weight, zone, rack);
  }

  /** This member with another weight. */
  public Member withWeight(int newWeight) {
    return new Member(id, address, newWeight, zone, rack);
  }
}
