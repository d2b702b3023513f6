package io.partkit.backend.hazelcast;

import static java.util.Objects.requireNonNull;

import com.hazelcast.config.Config;
import com.hazelcast.config.MemberAttributeConfig;
import com.hazelcast.config.PartitionGroupConfig;
import com.hazelcast.spi.partitiongroup.PartitionGroupMetaData;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * partkit members on Hazelcast: identity and labels as member attributes, and replica spreading
 * across zones or racks through Hazelcast's member groups, the one part of its partition
 * placement Hazelcast lets users shape.
 *
 * <p>Attributes written ({@link #describe}): {@value #NODE_ID}, {@value #WEIGHT}, {@value #ZONE},
 * {@value #RACK}. Hazelcast's own UUIDs change on every start, so {@link #toMember} reads the
 * partkit id from {@value #NODE_ID} and falls back to the member's {@code host:port}.
 *
 * <p>Zone groups ({@link #zoneAware}) use Hazelcast's {@code ZONE_AWARE} member groups, which read
 * the member attribute {@code hazelcast.partition.group.zone}: Hazelcast then never puts a
 * partition's primary and its backups in one zone while there are at least two zones (with only
 * one zone it splits the members into two groups so the first backup survives). Rack groups
 * ({@link #rackAware}) use {@code PLACEMENT_AWARE} with {@code zone/rack} as the placement. The
 * weight is recorded for statistics; Hazelcast has no per-member weights.
 */
public final class HazelcastMembers {

  /** Member attribute holding the partkit {@link NodeId}. */
  public static final String NODE_ID = "partkit.node-id";
  /** Member attribute holding the partkit weight. */
  public static final String WEIGHT = "partkit.weight";
  /** Member attribute holding the partkit zone label. */
  public static final String ZONE = "partkit.zone";
  /** Member attribute holding the partkit rack label. */
  public static final String RACK = "partkit.rack";

  private HazelcastMembers() {}

  /**
   * Records the member's id, weight and labels as attributes of the Hazelcast member that
   * {@code config} starts.
   *
   * @return {@code config}
   */
  public static Config describe(Config config, Member member) {
    requireNonNull(config, "config");
    requireNonNull(member, "member");
    MemberAttributeConfig attributes = config.getMemberAttributeConfig();
    attributes.setAttribute(NODE_ID, member.id().value());
    attributes.setAttribute(WEIGHT, Integer.toString(member.weight()));
    attributes.setAttribute(ZONE, member.zone());
    attributes.setAttribute(RACK, member.rack());
    return config;
  }

  /**
   * {@link #describe} plus {@code ZONE_AWARE} member groups keyed by the member's zone. Every
   * member of the cluster must be configured this way (Hazelcast rejects a zone-aware member
   * without a zone when it forms groups).
   *
   * @return {@code config}
   * @throws IllegalArgumentException if the member has no zone label
   */
  public static Config zoneAware(Config config, Member member) {
    requireNonNull(member, "member");
    if (member.zone().isEmpty()) {
      throw new IllegalArgumentException(
          "zone-aware member groups need a zone label on " + member.id());
    }
    describe(config, member);
    config.getMemberAttributeConfig()
        .setAttribute(PartitionGroupMetaData.PARTITION_GROUP_ZONE, member.zone());
    config.getPartitionGroupConfig().setEnabled(true)
        .setGroupType(PartitionGroupConfig.MemberGroupType.ZONE_AWARE);
    return config;
  }

  /**
   * {@link #describe} plus {@code PLACEMENT_AWARE} member groups keyed by {@code zone/rack}.
   *
   * @return {@code config}
   * @throws IllegalArgumentException if the member has no rack label
   */
  public static Config rackAware(Config config, Member member) {
    requireNonNull(member, "member");
    if (member.rack().isEmpty()) {
      throw new IllegalArgumentException(
          "rack-aware member groups need a rack label on " + member.id());
    }
    describe(config, member);
    config.getMemberAttributeConfig().setAttribute(
        PartitionGroupMetaData.PARTITION_GROUP_PLACEMENT, member.zone() + "/" + member.rack());
    config.getPartitionGroupConfig().setEnabled(true)
        .setGroupType(PartitionGroupConfig.MemberGroupType.PLACEMENT_AWARE);
    return config;
  }

  /**
   * The partkit member for a Hazelcast member: id, weight and labels from the attributes written
   * by {@link #describe}; without them, id {@code host:port}, weight 1, no labels.
   *
   * @throws IllegalArgumentException if the weight attribute is not an integer in 1..1000
   */
  public static Member toMember(com.hazelcast.cluster.Member member) {
    requireNonNull(member, "member");
    String hostPort = member.getAddress().getHost() + ":" + member.getAddress().getPort();
    String id = member.getAttribute(NODE_ID);
    String weight = member.getAttribute(WEIGHT);
    int w;
    try {
      w = weight == null ? 1 : Integer.parseInt(weight);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "member " + hostPort + " has a non-integer " + WEIGHT + ": '" + weight + "'", e);
    }
    return new Member(NodeId.of(id == null ? hostPort : id), hostPort, w,
        orEmpty(member.getAttribute(ZONE)), orEmpty(member.getAttribute(RACK)));
  }

  /** A view of the given Hazelcast members (e.g. {@code hz.getCluster().getMembers()}). */
  public static MembershipView view(long version,
      Collection<? extends com.hazelcast.cluster.Member> members) {
    List<Member> list = new ArrayList<>(members.size());
    for (com.hazelcast.cluster.Member m : members) {
      list.add(toMember(m));
    }
    return MembershipView.of(version, list);
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
