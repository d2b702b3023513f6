package io.partkit.bench.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.bench.LiveResult.ClientFigures;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure parts of a live run: the memberships, the client windows, the options. */
class SubjectRunTest {

  @Test
  void theMembershipsAreTheSpareGoneThenJoinLeaveAndKill() {
    List<String> nodes = List.of("n1", "n2", "n3", "n4", "n5", "n6");
    assertThat(SubjectRun.memberships(nodes, "n6", "n2", "n3")).containsExactly(
        nodes, List.of("n1", "n2", "n3", "n4", "n5"), nodes,
        List.of("n1", "n3", "n4", "n5", "n6"), List.of("n1", "n4", "n5", "n6"));
  }

  @Test
  void aWindowCountsCompletionsForThroughputAndScheduledStartsForLatency() {
    long s = 1_000_000_000L;
    long ms = 1_000_000L;
    ClientLoad.Operations ops = new ClientLoad.Operations(new long[][] {
        {0, 1 * ms, 1}, {100 * ms, 102 * ms, 1}, {200 * ms, 210 * ms, 0},
        {900 * ms, s + 500 * ms, 1}, // scheduled in the first second, done in the second
        {s + 100 * ms, s + 101 * ms, 1}});
    ClientFigures first = ops.window(0, s);
    assertThat(first.opsPerSecond()).isEqualTo(2.0);
    assertThat(first.errors()).isEqualTo(1);
    assertThat(first.maxMs()).isEqualTo(600.0);
    assertThat(first.p50Ms()).isEqualTo(2.0);
    double[][] perSecond = ops.perSecond(2 * s);
    assertThat(perSecond[0]).containsExactly(2, 2);
    assertThat(perSecond[1][0]).isEqualTo(600.0);
    assertThat(perSecond[2]).containsExactly(1, 0);
  }

  @Test
  void badLiveOptionsAreRefusedNamingEachProblem() {
    LiveOptions quick = LiveOptions.quickRun(Path.of("x"));
    assertThatThrownBy(() -> quick.withSystems(List.of("kv", "cassandra")).withKeys(5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "unknown system 'cassandra' (known: [kv, ignite, hazelcast])");
    assertThatThrownBy(() -> quick.withKeys(5))
        .hasMessageContaining("live keys must be in 1000..10000000: 5");
    assertThatThrownBy(() -> quick.withRate(0))
        .hasMessageContaining("live rate must be in 10..1000000");
  }

  @Test
  void everySystemHasItsSubjectsWithOneBackupCopy() {
    List<LiveSubjects.LiveSubject> subjects = LiveSubjects.of(LiveSubjects.SYSTEMS, 50_000);
    assertThat(subjects).extracting(LiveSubjects.LiveSubject::label).containsExactly(
        "kv/fixed", "kv/rendezvous", "ignite/native",
        "ignite/partkit-fixed", "ignite/partkit-rendezvous", "hazelcast/native",
        "hazelcast/partkit");
    assertThat(subjects).allSatisfy(s -> assertThat(s.options())
        .containsAnyOf(Map.entry("replicas", "2"), Map.entry("backups", "1")));
  }

  @Test
  void keysAreDistinctAndSpreadOverTheKeySpaceForKeyRanges() {
    int n = 100_000;
    java.util.Set<Long> seen = new java.util.HashSet<>();
    int[] firstByte = new int[256];
    for (int i = 0; i < n; i++) {
      long key = LiveKeys.key(i);
      seen.add(key);
      firstByte[(int) (key >>> 56)]++;
    }
    assertThat(seen).hasSize(n);
    // about n/256 = 390 keys per first byte: ranges cut evenly over the key space all get some
    assertThat(java.util.Arrays.stream(firstByte).min().orElseThrow()).isGreaterThan(300);
    assertThat(java.util.Arrays.stream(firstByte).max().orElseThrow()).isLessThan(490);
  }
}
