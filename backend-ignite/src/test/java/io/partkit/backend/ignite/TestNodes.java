package io.partkit.backend.ignite;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.ignite.cluster.ClusterNode;

/**
 * Stand-in {@link ClusterNode}s for calling Ignite's affinity functions without a cluster: the
 * functions read only the consistent id, the node id and attributes (the MAC list for
 * exclude-neighbors).
 */
final class TestNodes {

  /** Ignite's {@code IgniteNodeAttributes.ATTR_MACS}. */
  static final String ATTR_MACS = "org.apache.ignite.macs";

  private TestNodes() {}

  /** A node with this consistent id, a node id from {@code random} and the given attributes. */
  static ClusterNode node(String consistentId, Random random, Map<String, Object> attributes) {
    UUID id = new UUID(random.nextLong(), random.nextLong());
    Object[] self = new Object[1];
    ClusterNode node = (ClusterNode) Proxy.newProxyInstance(TestNodes.class.getClassLoader(),
        new Class<?>[] {ClusterNode.class}, (proxy, method, args) -> {
          switch (method.getName()) {
            case "consistentId":
              return consistentId;
            case "id":
              return id;
            case "attribute":
              return attributes.get((String) args[0]);
            case "attributes":
              return attributes;
            case "addresses":
            case "hostNames":
              return List.of();
            case "isClient":
            case "isDaemon":
            case "isLocal":
              return false;
            case "order":
              return 1L;
            case "hashCode":
              return id.hashCode();
            case "equals":
              return args[0] == self[0];
            case "toString":
              return "TestNode{" + consistentId + "}";
            default:
              throw new UnsupportedOperationException(method.getName());
          }
        });
    self[0] = node;
    return node;
  }

  /** {@code n} nodes with random consistent ids drawn from {@code random}. */
  static List<ClusterNode> randomNodes(int n, Random random) {
    List<ClusterNode> nodes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      nodes.add(node("node-" + Long.toHexString(random.nextLong()), random, Map.of()));
    }
    return nodes;
  }
}
