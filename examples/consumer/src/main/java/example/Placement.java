package example;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;

/** Places a few keys with the strategy {@code fixed}, found on the class path by ServiceLoader. */
public final class Placement {

  private Placement() {}

  public static void main(String[] args) {
    Partitioners partitioners = Partitioners.load();
    System.out.println("strategies on the class path: " + partitioners.names());

    Partitioner fixed = partitioners.create("fixed",
        PartitionerConfig.of("partitions", 271, "replicas", 2));
    PartitionAssignment table = fixed.assign(MembershipView.of(
        Member.located("node-a", "zone-1", "rack-1"),
        Member.located("node-b", "zone-2", "rack-1"),
        Member.located("node-c", "zone-3", "rack-1")));
    for (String key : new String[] {"user-1", "user-2", "user-3", "order-17"}) {
      int partition = table.partitionOf(key);
      System.out.println(key + " -> partition " + partition + " -> " + table.replicas(partition));
    }
  }
}
