package io.partkit.coordinator;

import io.partkit.spi.HashSlots;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A small minimal-move table strategy for coordinator tests ({@code "test-table"}), standing in
 * until {@code partkit-strategy-fixed} lands on main: quotas of floor/ceil(P/N) primaries in id
 * order, partitions keep their primary while it is live and under quota, the rest fill the members
 * under quota in id order; replicas are the next members after the primary in id order.
 */
public final class TestTablePartitionerProvider implements PartitionerProvider {

  /** For {@code ServiceLoader}, which finds it through this module's test META-INF/services. */
  public TestTablePartitionerProvider() {}

  @Override
  public String name() {
    return "test-table";
  }

  @Override
  public String description() {
    return "test-only minimal-move table";
  }

  @Override
  public Partitioner create(PartitionerConfig config) {
    PartitionerConfig.Reader r = config.reader("strategy 'test-table'");
    int partitions = r.intValue("partitions", 64, 1, 4096);
    int replicas = r.intValue("replicas", 1, 1, 7);
    r.validate();
    return new Partitioner() {
      @Override
      public String name() {
        return "test-table";
      }

      @Override
      public PartitionerConfig config() {
        return config;
      }

      @Override
      public int replicationFactor() {
        return replicas;
      }

      @Override
      public PartitionAssignment place(MembershipView view, Optional<PartitionAssignment> prev,
          int replicas) {
        if (view.isEmpty()) {
          throw new IllegalArgumentException("view must not be empty");
        }
        List<NodeId> ids = view.ids();
        int n = ids.size();
        Map<NodeId, Integer> quota = new HashMap<>();
        for (int i = 0; i < n; i++) {
          quota.put(ids.get(i), partitions / n + (i < partitions % n ? 1 : 0));
        }
        NodeId[] primary = new NodeId[partitions];
        Optional<PartitionAssignment> usable = prev.filter(
            p -> p.partitionCount() == partitions && p.strategy().equals("test-table"));
        if (usable.isPresent()) {
          for (int p = 0; p < partitions; p++) {
            NodeId old = usable.get().primary(p);
            Integer left = quota.get(old);
            if (left != null && left > 0) {
              primary[p] = old;
              quota.put(old, left - 1);
            }
          }
        }
        int cursor = 0;
        for (int p = 0; p < partitions; p++) {
          if (primary[p] == null) {
            while (quota.get(ids.get(cursor)) == 0) {
              cursor++;
            }
            primary[p] = ids.get(cursor);
            quota.put(ids.get(cursor), quota.get(ids.get(cursor)) - 1);
          }
        }
        int rf = Math.min(replicas, n);
        List<List<NodeId>> table = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
          List<NodeId> row = new ArrayList<>();
          int at = view.indexOf(primary[p]);
          for (int k = 0; k < rf; k++) {
            row.add(ids.get((at + k) % n));
          }
          table.add(row);
        }
        return PartitionAssignment.of("test-table", 0, view.version(), HashSlots.of(partitions),
            table);
      }
    };
  }
}
