package io.partkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * Runs the partitioner kit against a strategy known to be wrong in specific ways (it reshuffles
 * on every membership change and ignores weights and zones) and right in the others: the kit
 * must fail exactly those checks and pass the rest.
 */
class ContractKitCatchesBrokenStrategiesTest {

  @Test
  void theKitFailsModuloPlacementOnDisruptionAndOnlyThere() {
    Events tests = EngineTestKit.engine("junit-jupiter")
        .configurationParameter("junit.jupiter.conditions.deactivate", "*")
        .selectors(selectClass(NaiveModuloKitRun.class))
        .execute()
        .testEvents();
    Set<String> failedMethods = new TreeSet<>();
    tests.failed().stream().forEach(e -> failedMethods.add(
        e.getTestDescriptor().getUniqueId().getSegments().get(2).getValue()));
    assertThat(failedMethods).containsExactlyInAnyOrder(
        "aJoinMovesDataOnlyToTheNewMemberAndNearTheOptimum(int, long)",
        "aLeaveMovesOnlyTheLeavingMembersData(int, long)",
        "randomMembershipChangesKeepEveryInvariant(long)",
        // modulo ignores weights and zone labels, and the kit notices that too
        "heavierMembersHoldMore()",
        "replicasSpreadOverZonesWhenLabelsAllow()");
    assertThat(tests.succeeded().count()).isGreaterThan(20);
    tests.failed().stream().forEach(e -> assertThat(
        e.getRequiredPayload(TestExecutionResult.class).getThrowable())
        .get().isInstanceOf(AssertionError.class));
  }
}
