package io.partkit.coordinator.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.coordinator.Leadership;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.PendingMigration;
import io.partkit.coordinator.VersionedValues;
import io.partkit.coordinator.VersionedValues.Versioned;
import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
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
 *
 * <p>It includes the contract of {@link VersionedValues}: a store under this kit must implement
 * that ability too (both built-in stores do), and the value tests fail, not skip, when it does
 * not.
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

  // ---- versioned values ----

  /** The store's {@link VersionedValues}; failing, not skipping, when it lacks the ability. */
  private static VersionedValues values(MetadataStore s) {
    assertThat(s).as("%s implements VersionedValues", s.describe())
        .isInstanceOf(VersionedValues.class);
    return (VersionedValues) s;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aValueIsCreatedOnceFromAbsent() {
    VersionedValues v = values(store());
    assertThat(v.get("control")).isEmpty();
    OptionalLong created = v.compareAndSet("control", VersionedValues.ABSENT, utf8("one"));
    assertThat(created).isPresent();
    assertThat(created.getAsLong()).isPositive();
    assertThat(v.get("control")).contains(new Versioned(utf8("one"), created.getAsLong()));
    assertThat(v.compareAndSet("control", VersionedValues.ABSENT, utf8("two")))
        .as("a second create from ABSENT").isEmpty();
    assertThat(v.get("control")).contains(new Versioned(utf8("one"), created.getAsLong()));
    assertThat(v.get("other")).as("another name").isEmpty();
  }

  @Test
  void compareAndSetSucceedsOnlyFromTheCurrentVersion() {
    VersionedValues v = values(store());
    long first = v.compareAndSet("state", VersionedValues.ABSENT, utf8("a")).orElseThrow();
    long second = v.compareAndSet("state", first, utf8("b")).orElseThrow();
    assertThat(second).isGreaterThan(first);
    assertThat(v.compareAndSet("state", first, utf8("stale"))).as("from a stale version")
        .isEmpty();
    assertThat(v.compareAndSet("state", second + 1000, utf8("future"))).as("from a version never"
        + " stored").isEmpty();
    assertThat(v.get("state")).contains(new Versioned(utf8("b"), second));
    long third = v.compareAndSet("state", second, utf8("b")).orElseThrow();
    assertThat(third).as("the same bytes again are a change too").isGreaterThan(second);
    long other = v.compareAndSet("other", VersionedValues.ABSENT, new byte[0]).orElseThrow();
    assertThat(v.get("other")).contains(new Versioned(new byte[0], other));
    long fourth = v.compareAndSet("state", third, utf8("c")).orElseThrow();
    assertThat(fourth).as("versions order changes across names").isGreaterThan(other);
  }

  @Test
  void aSecondClientSeesTheValueAndItsVersion() {
    VersionedValues one = values(store());
    VersionedValues two = values(secondClient());
    long created = one.compareAndSet("shared", VersionedValues.ABSENT, utf8("x")).orElseThrow();
    assertThat(two.get("shared")).contains(new Versioned(utf8("x"), created));
    long next = two.compareAndSet("shared", created, utf8("y")).orElseThrow();
    assertThat(one.get("shared")).contains(new Versioned(utf8("y"), next));
    assertThat(one.compareAndSet("shared", created, utf8("z"))).as("the first client is stale")
        .isEmpty();
  }

  @Test
  void ofRacingWritersFromOneVersionExactlyOneWins() throws Exception {
    VersionedValues one = values(store());
    VersionedValues two = values(secondClient());
    long version = one.compareAndSet("raced", VersionedValues.ABSENT, utf8("start"))
        .orElseThrow();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 1; round <= 20; round++) {
        long from = version;
        byte[] a = utf8("a" + round);
        byte[] b = utf8("b" + round);
        CountDownLatch go = new CountDownLatch(1);
        Future<OptionalLong> byOne = pool.submit(() -> {
          go.await();
          return one.compareAndSet("raced", from, a);
        });
        Future<OptionalLong> byTwo = pool.submit(() -> {
          go.await();
          return two.compareAndSet("raced", from, b);
        });
        go.countDown();
        OptionalLong wonOne = byOne.get();
        OptionalLong wonTwo = byTwo.get();
        assertThat(wonOne.isPresent() ^ wonTwo.isPresent()).as("round %d: exactly one wins",
            round).isTrue();
        version = wonOne.isPresent() ? wonOne.getAsLong() : wonTwo.getAsLong();
        assertThat(version).as("round %d: the new version", round).isGreaterThan(from);
        assertThat(one.get("raced")).as("round %d", round)
            .contains(new Versioned(wonOne.isPresent() ? a : b, version));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void badNamesAndOversizedValuesAreRefusedWithTheReason() {
    VersionedValues v = values(store());
    String allowed = "a name is 1 to 128 characters of [A-Za-z0-9._-]";
    for (String bad : List.of("", "a/b", "a b", "caf\u00e9", "x".repeat(129))) {
      assertThatThrownBy(() -> v.compareAndSet(bad, VersionedValues.ABSENT, utf8("v")))
          .as("name '%s'", bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("bad value name '" + bad.substring(0, Math.min(bad.length(), 128)))
          .hasMessageContaining(allowed);
      assertThatThrownBy(() -> v.get(bad)).as("name '%s'", bad)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(allowed);
    }
    String longest = "A-z_0.9".repeat(19).substring(0, 128);
    assertThat(v.compareAndSet(longest, VersionedValues.ABSENT, utf8("v"))).isPresent();

    byte[] over = new byte[VersionedValues.MAX_VALUE_BYTES + 1];
    assertThatThrownBy(() -> v.compareAndSet("big", VersionedValues.ABSENT, over))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("value 'big' is 1048577 bytes, over the limit of 1048576 bytes (1 MiB)");
    assertThat(v.get("big")).isEmpty();
    byte[] largest = new byte[VersionedValues.MAX_VALUE_BYTES];
    Arrays.fill(largest, (byte) 7);
    long version = v.compareAndSet("big", VersionedValues.ABSENT, largest).orElseThrow();
    assertThat(v.get("big")).contains(new Versioned(largest, version));

    assertThatThrownBy(() -> v.compareAndSet("neg", -1, utf8("v")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
  }

  @Test
  void valuesAreCopiedInAndOut() {
    VersionedValues v = values(store());
    byte[] given = utf8("original");
    long version = v.compareAndSet("copied", VersionedValues.ABSENT, given).orElseThrow();
    given[0] = 'X';
    Versioned read = v.get("copied").orElseThrow();
    assertThat(read.value()).isEqualTo(utf8("original"));
    byte[] returned = read.value();
    returned[0] = 'Y';
    assertThat(read.value()).as("the record's bytes").isEqualTo(utf8("original"));
    assertThat(v.get("copied")).contains(new Versioned(utf8("original"), version));
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
