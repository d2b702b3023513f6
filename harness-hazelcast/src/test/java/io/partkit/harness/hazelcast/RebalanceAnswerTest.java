package io.partkit.harness.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.system.Capability.Received;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** A member's REBALANCE answer, and when the answers say the rebalance is done. */
class RebalanceAnswerTest {

  /** In node order, as the system passes them. */
  private static final Map<String, String> TWO = new TreeMap<>(Map.of("h1", "a:1", "h2", "a:2"));

  @Test
  void readsTheCountersStateAndMembersOfItsOwnRequest() {
    RebalanceAnswer a = RebalanceAnswer.parse("7", "HAZELCAST REBALANCE 7 keys=10 bytes=2000"
        + " partitions=3 migrating=false safe=true members=a:1,a:2");
    assertThat(a.received()).isEqualTo(new Received(10, 2000, 3));
    assertThat(a.safe()).isTrue();
    assertThat(a.migrating()).isFalse();
    assertThat(a.members()).containsExactly("a:1", "a:2");
    assertThat(a.error()).isNull();
  }

  @Test
  void refusesAnotherRequestsAnswerAndSaysWhatIsMissing() {
    assertThatThrownBy(() -> RebalanceAnswer.parse("8", "HAZELCAST REBALANCE 7 keys=1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not the answer to REBALANCE 8");
    assertThatThrownBy(() -> RebalanceAnswer.parse("8", "HAZELCAST REBALANCE 8 keys=1 bytes=x"
        + " partitions=0 migrating=false safe=true members=a:1"))
        .hasMessageContaining("bytes=x").hasMessageContaining("not a whole number");
    assertThatThrownBy(() -> RebalanceAnswer.parse("8", "HAZELCAST REBALANCE 8 keys=1"))
        .hasMessageContaining("no bytes=");
  }

  @Test
  void isDoneOnlyWhenEveryExpectedMemberIsSafeIdleAndSeesExactlyTheExpectedMembers() {
    RebalanceAnswer settled = answer(false, true, "a:1", "a:2");
    assertThat(RebalanceAnswer.stillGoing(TWO, Map.of("h1", settled, "h2", settled))).isEmpty();

    // a crashed member the failure detector has not removed yet
    RebalanceAnswer stale = answer(false, true, "a:1", "a:2", "a:3");
    assertThat(RebalanceAnswer.stillGoing(TWO, Map.of("h1", stale, "h2", settled)))
        .hasValueSatisfying(s -> assertThat(s).contains("h1 sees 3 members, still [a:3]"));
    assertThat(RebalanceAnswer.stillGoing(TWO, Map.of("h1", settled)))
        .hasValue("h2 does not answer");
    assertThat(RebalanceAnswer.stillGoing(TWO,
        Map.of("h1", answer(true, true, "a:1", "a:2"), "h2", answer(false, false, "a:1", "a:2"))))
        .hasValue("h1 migrating; h2 not safe");
    assertThat(RebalanceAnswer.stillGoing(TWO, Map.of("h1", settled, "h2",
        RebalanceAnswer.parse("1", "HAZELCAST REBALANCE 1 error=HazelcastInstanceNotActive"))))
        .hasValue("h2: HazelcastInstanceNotActive");
  }

  private static RebalanceAnswer answer(boolean migrating, boolean safe, String... members) {
    return new RebalanceAnswer(new Received(0, 0, 0), migrating, safe, List.of(members), null);
  }
}
