package io.partkit.strategy.tokenring;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Replica placement by walking the ring clockwise from a range's own token, the way Cassandra's
 * {@code SimpleStrategy} and {@code NetworkTopologyStrategy} do.
 *
 * <p>Without labels (or with {@code zone-aware=false}) the replicas of range {@code i} are the
 * first {@code rf} distinct nodes met from {@code token[i]} on. With zone/rack labels the walk is
 * NTS's rack rule with one more level: each replica is the first node (in walk order from the
 * range) of the best class still available, where a node in a zone not chosen yet beats a node in
 * a chosen zone but an unchosen rack, which beats any other node. For a single zone this is
 * exactly NTS: new racks are taken as the walk meets them, nodes in seen racks are skipped and
 * then taken in the order they were met once every rack has a replica. A rack is identified by
 * (zone, rack) and an empty label is a label like any other (the "unknown" zone or rack).
 *
 * <p>Cost: one walk per range that stops when all replicas are found; in a balanced ring a
 * replica of an unseen zone is a few tokens away.
 */
final class ReplicaWalk {

  private final int[] owner;
  private final int[] zone;
  private final int[] rack;
  private final int zoneCount;
  private final int rackCount;
  private final NodeId[] ids;
  private final int rf;

  // scratch, reused across ranges: stamp arrays avoid clearing per range
  private final int[] walkedStamp;
  private final int[] zoneStamp;
  private final int[] rackStamp;
  private final int[] pending;

  /**
   * @param ring tokens and owners, owners all members of {@code view}
   * @param rf replicas per range, at most the member count
   * @param zoneAware false to ignore zone and rack labels
   */
  ReplicaWalk(Ring ring, MembershipView view, int rf, boolean zoneAware) {
    int n = view.size();
    this.rf = rf;
    this.ids = view.ids().toArray(NodeId[]::new);
    this.owner = new int[ring.size()];
    for (int i = 0; i < owner.length; i++) {
      owner[i] = view.indexOf(ring.owners()[i]);
    }
    this.zone = new int[n];
    this.rack = new int[n];
    Map<String, Integer> zones = new HashMap<>();
    Map<List<String>, Integer> racks = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Member m = view.member(i);
      String z = zoneAware ? m.zone() : "";
      String r = zoneAware ? m.rack() : "";
      zone[i] = zones.computeIfAbsent(z, k -> zones.size());
      rack[i] = racks.computeIfAbsent(List.of(z, r), k -> racks.size());
    }
    this.zoneCount = zones.size();
    this.rackCount = racks.size();
    this.walkedStamp = new int[n];
    this.zoneStamp = new int[zoneCount];
    this.rackStamp = new int[rackCount];
    this.pending = new int[n];
  }

  /** Replicas of every range, in range order. */
  List<List<NodeId>> all() {
    List<List<NodeId>> lists = new ArrayList<>(owner.length);
    for (int i = 0; i < owner.length; i++) {
      lists.add(replicasOf(i, i + 1));
    }
    return lists;
  }

  private int cls(int node, int stamp) {
    if (zoneStamp[zone[node]] != stamp) {
      return 0;
    }
    return rackStamp[rack[node]] != stamp ? 1 : 2;
  }

  /** The replicas of range {@code start}; {@code stamp} is unique per call and non-zero. */
  private List<NodeId> replicasOf(int start, int stamp) {
    NodeId[] chosen = new NodeId[rf];
    int pendingCount = 0;
    int pos = start;
    int walked = 0;
    int zonesSeen = 0;
    int racksSeen = 0;
    for (int pick = 0; pick < rf; pick++) {
      int best = zonesSeen < zoneCount ? 0 : racksSeen < rackCount ? 1 : 2;
      int found = -1;
      // first among nodes met earlier but skipped
      for (int j = 0; j < pendingCount; j++) {
        if (cls(pending[j], stamp) == best) {
          found = pending[j];
          System.arraycopy(pending, j + 1, pending, j, pendingCount - j - 1);
          pendingCount--;
          break;
        }
      }
      // else walk on; each token is visited at most once per range
      while (found < 0) {
        if (walked == owner.length) {
          throw new IllegalStateException("ring walk found no node of class " + best
              + " from range " + start); // impossible: every member owns a token
        }
        int node = owner[pos];
        pos = pos + 1 == owner.length ? 0 : pos + 1;
        walked++;
        if (walkedStamp[node] == stamp) {
          continue;
        }
        walkedStamp[node] = stamp;
        if (cls(node, stamp) == best) {
          found = node;
        } else {
          pending[pendingCount++] = node;
        }
      }
      chosen[pick] = ids[found];
      if (zoneStamp[zone[found]] != stamp) {
        zoneStamp[zone[found]] = stamp;
        zonesSeen++;
      }
      if (rackStamp[rack[found]] != stamp) {
        rackStamp[rack[found]] = stamp;
        racksSeen++;
      }
    }
    return List.of(chosen);
  }
}
