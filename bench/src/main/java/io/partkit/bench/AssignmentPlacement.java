package io.partkit.bench;

import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.Optional;

/** A placement backed by a partkit {@link PartitionAssignment}: exact ownership and movement. */
final class AssignmentPlacement implements Placement {

  private final MembershipView view;
  private final PartitionAssignment assignment;
  private int[] table;

  AssignmentPlacement(MembershipView view, PartitionAssignment assignment) {
    this.view = view;
    this.assignment = assignment;
  }

  @Override
  public MembershipView view() {
    return view;
  }

  @Override
  public int replicationFactor() {
    return assignment.replicationFactor();
  }

  @Override
  public int partitionCount() {
    return assignment.partitionCount();
  }

  @Override
  public int replica(int partition, int rank) {
    if (table == null) {
      int rf = assignment.replicationFactor();
      int[] t = new int[assignment.partitionCount() * rf];
      for (int p = 0; p < assignment.partitionCount(); p++) {
        for (int r = 0; r < rf; r++) {
          NodeId node = assignment.replica(p, r);
          int index = view.indexOf(node);
          if (index < 0) {
            throw new IllegalStateException(
                "assignment places partition " + p + " on " + node + ", not a member of the view");
          }
          t[p * rf + r] = index;
        }
      }
      table = t;
    }
    return table[partition * assignment.replicationFactor() + rank];
  }

  @Override
  public int[] partitionsOf(long[] keys) {
    int[] out = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      out[i] = assignment.partitionOf(keys[i]);
    }
    return out;
  }

  @Override
  public Optional<PartitionAssignment> exact() {
    return Optional.of(assignment);
  }

  @Override
  public Lookup lookup() {
    PartitionAssignment a = assignment;
    return a::primaryOf;
  }
}
