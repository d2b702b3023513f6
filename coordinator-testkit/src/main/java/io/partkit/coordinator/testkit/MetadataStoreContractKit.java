package io.partkit.coordinator.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.coordinator.Leadership;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.PendingMigration;
import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link MetadataStore}, run against each store by a subclass that provides a
 * fresh, empty store per call of {@link #store()} within one test (same underlying data).
 */
public abstract class MetadataStoreContractKit {

  /** The store of the current test; every call within one test reaches the same data. */
  protected abstract MetadataStore store();

  /** A second client of the same data (another process, in production). */
  protected abstract MetadataStore secondClient();

  static PartitionAssignment table(long epoch, String... owners) {
    List<List<NodeId>> rows = new ArrayList<>();
    for (String o : owners) {
      rows.add(List.of(NodeId.of(o)));
    }
    return PartitionAssignment.of("test-table", epoch, 1, HashSlots.of(owners.length), rows);
  }

  @Test
  void compareAndSetCommitsOnlyFromTheExpectedEpoch() {
    MetadataStore s = store();
    assertThat(s.read().table()).isEmpty();
    assertThat(s.compareAndSetTable(3, table(4, "a", "b"))).as("no table yet").isFalse();
    assertThat(s.compareAndSetTable(MetadataStore.NO_TABLE, table(1, "a", "b"))).isTrue();
    assertThat(s.compareAndSetTable(MetadataStore.NO_TABLE, table(1, "b", "a"))).isFalse();
    assertThat(s.compareAndSetTable(1, table(2, "b", "a"))).isTrue();
    assertThat(s.read().table()).contains(table(2, "b", "a"));
    assertThat(secondClient().read().table()).contains(table(2, "b", "a"));
    assertThatThrownBy(() -> s.compareAndSetTable(2, table(2, "a", "a2")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("above the expected 2");
  }

  @Test
  void racingWritersNeverBothCommitFromOneEpoch() throws Exception {
    MetadataStore one = store();
    MetadataStore two = secondClient();
    one.compareAndSetTable(MetadataStore.NO_TABLE, table(1, "a"));
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 1; round <= 20; round++) {
        long from = round;
        CountDownLatch go = new CountDownLatch(1);
        Future<Boolean> a = pool.submit(() -> {
          go.await();
          return one.compareAndSetTable(from, table(from + 1, "a"));
        });
        Future<Boolean> b = pool.submit(() -> {
          go.await();
          return two.compareAndSetTable(from, table(from + 1, "b"));
        });
        go.countDown();
        assertThat(a.get() ^ b.get()).as("round %d: exactly one wins", round).isTrue();
        String winner = a.get() ? "a" : "b";
        assertThat(one.read().table()).contains(table(from + 1, winner));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void migrationsAreRecordedAtTheirEpochAndClearedByTheCommit() {
    MetadataStore s = store();
    s.compareAndSetTable(MetadataStore.NO_TABLE, table(1, "a", "b"));
    PendingMigration m = new PendingMigration(
        new Migration(1, NodeId.of("b"), NodeId.of("c"), 2), List.of(NodeId.of("c")));
    PendingMigration later = new PendingMigration(
        new Migration(1, NodeId.of("b"), NodeId.of("c"), 6), List.of(NodeId.of("c")));
    assertThat(s.recordMigrations(5, List.of(later))).as("wrong epoch").isFalse();
    assertThat(s.recordMigrations(1, List.of(m))).isTrue();
    assertThat(s.recordMigrations(1, List.of(m))).as("already pending").isFalse();
    assertThat(secondClient().read().pending()).containsExactly(m);
    assertThat(s.clearMigrations(7)).isFalse();
    assertThat(s.read().pending()).containsExactly(m);
    assertThat(s.compareAndSetTable(1, table(2, "a", "c"))).isTrue();
    assertThat(s.read().pending()).as("the commit clears them").isEmpty();
    assertThat(s.read().epoch()).isEqualTo(2);
    assertThat(s.recordMigrations(2, List.of(new PendingMigration(
        new Migration(0, NodeId.of("a"), NodeId.of("c"), 3), List.of(NodeId.of("c")))))).isTrue();
    assertThat(s.clearMigrations(2)).isTrue();
    assertThat(s.read().pending()).isEmpty();
    assertThatThrownBy(() -> s.recordMigrations(2, List.of(m)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("above 2");
  }

  @Test
  void watchesDeliverTablesInEpochOrderStartingWithTheCurrent() throws Exception {
    MetadataStore s = store();
    s.compareAndSetTable(MetadataStore.NO_TABLE, table(1, "a"));
    List<Long> seen = new CopyOnWriteArrayList<>();
    AutoCloseable watch = secondClient().watchTable(t -> seen.add(t.epoch()));
    try {
      for (long e = 1; e < 30; e++) {
        s.compareAndSetTable(e, table(e + 1, e % 2 == 0 ? "a" : "b"));
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while ((seen.isEmpty() || seen.get(seen.size() - 1) != 30) && System.nanoTime() < deadline) {
        Thread.sleep(5); // polling interval
      }
    } finally {
      watch.close();
    }
    List<Long> expected = new ArrayList<>();
    for (long e = 1; e <= 30; e++) {
      expected.add(e);
    }
    assertThat(seen).isEqualTo(expected);
  }

  @Test
  void membersRegisterRenewAndLeave() throws Exception {
    MetadataStore s = store();
    AtomicBoolean changed = new AtomicBoolean();
    AutoCloseable watch = s.watchMembers(() -> changed.set(true));
    try {
      long v0 = s.members().version();
      s.putMember(Member.of("a").withAddress("127.0.0.1:1"), Duration.ofSeconds(30));
      s.putMember(Member.of("b"), Duration.ofSeconds(30));
      assertThat(secondClient().members().ids()).containsExactly(NodeId.of("a"), NodeId.of("b"));
      assertThat(s.members().find(NodeId.of("a")).orElseThrow().address()).isEqualTo("127.0.0.1:1");
      assertThat(s.members().version()).isGreaterThan(v0);
      assertThat(s.renewMember(NodeId.of("a"))).isTrue();
      assertThat(s.renewMember(NodeId.of("zz"))).isFalse();
      assertThat(s.removeMember(NodeId.of("a"))).isTrue();
      assertThat(s.removeMember(NodeId.of("a"))).isFalse();
      assertThat(s.renewMember(NodeId.of("a"))).isFalse();
      assertThat(s.members().ids()).containsExactly(NodeId.of("b"));
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (!changed.get() && System.nanoTime() < deadline) {
        Thread.sleep(5); // polling interval
      }
      assertThat(changed).isTrue();
    } finally {
      watch.close();
    }
  }

  @Test
  void oneLeaderAtATimeAndAStandbyFollows() throws Exception {
    MetadataStore s = store();
    List<String> events = new CopyOnWriteArrayList<>();
    Leadership first = s.campaign("first", () -> events.add("first"), () -> { });
    awaitTrue(first::isLeader);
    Leadership second = secondClient().campaign("second", () -> events.add("second"), () -> { });
    assertThat(second.isLeader()).isFalse();
    assertThat(s.leader()).contains("first");
    first.close();
    awaitTrue(second::isLeader);
    assertThat(first.isLeader()).isFalse();
    assertThat(s.leader()).contains("second");
    awaitTrue(() -> events.size() == 2);
    assertThat(events).containsExactly("first", "second");
    second.close();
  }

  static void awaitTrue(java.util.function.BooleanSupplier c) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not reached within 20 s");
      }
      Thread.sleep(5); // polling interval
    }
  }
}
