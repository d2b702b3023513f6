package io.partkit.cli.readme;

// README.md's first java block is exactly the text between the two marker lines below
// (ReadmeExampleTest compares them): edit both together.
// readme-example:begin
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import io.partkit.stats.Movement;
import java.util.List;
import java.util.Optional;

public class FirstExample {
  public static void main(String[] args) {
    Partitioner strategy = Partitioners.load()
        .create("fixed", PartitionerConfig.of("partitions", 1024, "replicas", 3));
    MembershipView members = MembershipView.of(
        Member.located("node-a", "zone-1", "rack-1"),
        Member.located("node-b", "zone-2", "rack-1"),
        Member.located("node-c", "zone-3", "rack-1"));
    PartitionAssignment table = strategy.assign(members);
    NodeId owner = table.primaryOf("user-42");                            // a hash and an array read
    List<NodeId> replicas = table.replicas(table.partitionOf("user-42")); // primary first, one per zone
    System.out.println("user-42: primary " + owner + ", replicas " + replicas);

    // a node joins: only what it must take moves, and only to it
    MembershipView grown = members.with(Member.located("node-d", "zone-1", "rack-2"));
    PartitionAssignment next = strategy.assign(grown, Optional.of(table));
    Movement moved = Movement.between(table, members, next, grown);
    System.out.printf("moved %.3f of the keys (least possible %.3f), %.3f between staying nodes%n",
        moved.primaryMovedShare(), moved.optimalShare(),           // 0.250 and 0.250
        moved.primaryMovedBetweenStayingShare());                  // 0.000
  }
}
// readme-example:end
