package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Replica;
import io.partkit.replica.Role;
import io.partkit.spi.HashSlots;
import io.partkit.spi.hash.KeyHash;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's listing of its partitions ({@link ReplicaClient#partitions}, {@link
 * ReplicaClient#partitionStatus}), over three
 * nodes and a control in this process (four partitions, two copies each): each primary and
 * backup as the control's table has them, with the keys written; a failover seen in the
 * listings; a partition never heard of; a control and misordered addresses named.
 */
class PartitionListingTest {

  static final int PARTITIONS = 4;
  static final int KEYS = 60;

  @TempDir Path dir;
  InProcessCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
      assertThat(cluster.failures).as("failures the nodes reported").isEmpty();
    }
  }

  @Test
  void eachNodeListsItsPartitionsAsTheTableHasThemWithTheKeysWritten() throws Exception {
    cluster = InProcessCluster.start(dir, 3, new HashSlots(PARTITIONS, KeyHash.MURMUR3_128), 2);
    try (ReplicaClient c = cluster.client().build()) {
      ReplicaClient.Table table = c.table();
      Map<Integer, Integer> keys = new HashMap<>();
      for (long k = 0; k < KEYS; k++) {
        assertThat(c.put(k, k).outcome()).isEqualTo(Outcome.OK);
        keys.merge(table.route(k).orElseThrow().partition(), 1, Integer::sum);
      }
      for (ReplicaClient.Row row : table.rows()) {
        int p = row.partition();
        Replica.Status primary = c.partitionStatus(row.primary(), p);
        assertThat(primary.role()).as("partition %d on its primary", p).isEqualTo(Role.PRIMARY);
        assertThat(primary.epoch()).isEqualTo(row.epoch());
        assertThat(primary.numbering()).isEqualTo(row.numbering());
        assertThat(primary.primary()).isEqualTo(row.primary());
        assertThat(primary.serving()).isTrue();
        assertThat(primary.levelled()).isTrue();
        assertThat(primary.joining()).isEmpty();
        assertThat(primary.keys()).isEqualTo(keys.getOrDefault(p, 0));
        assertThat(primary.backups()).hasSize(1);
        int b = primary.backups().get(0);
        Replica.Status backup = c.partitionStatus(b, p);
        assertThat(backup.role()).as("partition %d on its backup %d", p, b)
            .isEqualTo(Role.BACKUP);
        assertThat(backup.epoch()).isEqualTo(row.epoch());
        assertThat(backup.primary()).isEqualTo(row.primary());
        assertThat(backup.serving()).isFalse();
        assertThat(backup.levelled()).isTrue();
        assertThat(backup.level()).isEqualTo(primary.level());
        assertThat(backup.keys()).as("every write replicated").isEqualTo(primary.keys());
        assertThat(backup.seq()).isEqualTo(primary.seq());
        assertThat(backup.state()).isEqualTo(primary.state());
      }
      int primaries = 0;
      int backups = 0;
      for (int n = 0; n < 3; n++) {
        List<Replica.Status> listed = c.partitions(n);
        assertThat(listed).extracting(Replica.Status::partition).as("node %d, ascending", n)
            .isSorted().doesNotHaveDuplicates();
        for (Replica.Status s : listed) {
          assertThat(c.partitionStatus(n, s.partition())).as("node %d's partition %d alone", n,
              s.partition()).isEqualTo(s);
          primaries += s.role() == Role.PRIMARY ? 1 : 0;
          backups += s.role() == Role.BACKUP ? 1 : 0;
        }
      }
      assertThat(primaries).as("one primary of each partition").isEqualTo(PARTITIONS);
      assertThat(backups).as("one backup of each partition").isEqualTo(PARTITIONS);

      Replica.Status never = c.partitionStatus(0, 99);
      assertThat(never.role()).isEqualTo(Role.ABSENT);
      assertThat(never.epoch()).isZero();
      assertThat(never.keys()).isZero();
      assertThatThrownBy(() -> c.partitionStatus(0, -1))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void aFailoverShowsInTheListingsAtANewerEpoch() throws Exception {
    cluster = InProcessCluster.start(dir, 3, new HashSlots(PARTITIONS, KeyHash.MURMUR3_128), 2);
    try (ReplicaClient c = cluster.client().build()) {
      for (long k = 0; k < KEYS; k++) {
        assertThat(c.put(k, k).outcome()).isEqualTo(Outcome.OK);
      }
      ReplicaClient.Row row = c.table().rows().get(0);
      Replica.Status before = c.partitionStatus(row.primary(), 0);
      int backup = before.backups().get(0);
      cluster.stopNode(row.primary());
      assertThatThrownBy(() -> c.partitions(row.primary())).isInstanceOf(IOException.class)
          .hasMessageStartingWith("no partition listing from node " + row.primary());

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      Replica.Status after = c.partitionStatus(backup, 0);
      while (after.role() != Role.PRIMARY && System.nanoTime() < deadline) {
        Thread.sleep(50);
        after = c.partitionStatus(backup, 0);
      }
      assertThat(after.role()).as("the backup took over partition 0").isEqualTo(Role.PRIMARY);
      assertThat(after.epoch()).isGreaterThan(before.epoch());
      assertThat(after.keys()).as("with every key").isEqualTo(before.keys());
      cluster.startNode(row.primary());
      cluster.awaitSettled(c);
      // the listing is the node's own view: the restarted node may not have heard of the
      // newer epoch yet (the control may have replaced it), but it never serves the old one
      Replica.Status back = c.partitionStatus(row.primary(), 0);
      if (back.epoch() >= after.epoch()) {
        assertThat(back.role()).as(back.toString()).isNotEqualTo(Role.PRIMARY);
      } else {
        assertThat(back.epoch()).as(back.toString()).isEqualTo(before.epoch());
        assertThat(back.serving()).as("a primary of an older epoch, restarted: " + back)
            .isFalse();
      }
    }
  }

  @Test
  void aControlAndAddressesOutOfNodeOrderAreNamed() throws Exception {
    cluster = InProcessCluster.start(dir, 3, new HashSlots(PARTITIONS, KeyHash.MURMUR3_128), 1);
    try (ReplicaClient control = ReplicaClient.builder(List.of(cluster.controlAddress),
        List.of(cluster.controlAddress)).build()) {
      assertThatThrownBy(() -> control.partitions(0)).isInstanceOf(IOException.class)
          .hasMessageContaining("it closed the connection instead");
    }
    try (ReplicaClient reversed = ReplicaClient.builder(List.of(cluster.controlAddress),
        List.of(cluster.nodes.get(2), cluster.nodes.get(1), cluster.nodes.get(0))).build()) {
      assertThatThrownBy(() -> reversed.partitions(0)).isInstanceOf(IOException.class)
          .hasMessageContaining("answers as node 2, not 0");
      assertThat(reversed.partitions(1)).as("node 1 is where it should be").isNotNull();
    }
  }
}
