package io.partkit.harness.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.system.Capability;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.SystemContext;
import io.partkit.harness.system.SystemOptions;
import io.partkit.harness.system.SystemUnderTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A nemesis asks for the capability it needs, and a system without it is refused before anything
 * starts, naming what it lacks and what it offers (the systems here are never started).
 */
class CapabilityRefusalTest {

  /** The options of a system that takes none. */
  private static final OptionValues NONE = SystemOptions.of("plain").check(Map.of(), 3);

  /** Serves clients and nothing else: no capability at all. */
  private static class Plain implements SystemUnderTest {
    @Override
    public String name() {
      return "plain";
    }

    @Override
    public void start(SystemContext context) {
      throw new AssertionError("a refused run starts nothing");
    }

    @Override
    public List<String> nodes() {
      return List.of("a", "b", "c");
    }

    @Override
    public Client openClient() {
      throw new AssertionError("a refused run opens no client");
    }

    @Override
    public void close() {}
  }

  /** Can be paused, nothing more. */
  private static final class Pausable extends Plain implements Capability.Pause {
    @Override
    public void pause(String node) {}

    @Override
    public void resume(String node) {}
  }

  @Test
  void eachNemesisNamesTheCapabilityItNeedsAndWhatTheSystemOffers() {
    try (NodeRuntime runtime = Runtimes.processes()) {
      Map<String, String> needs = Map.of("kill", "kill", "pause", "pause",
          "membership", "membership", "migration", "migrations", "lose", "lose-nodes", "split",
          "splits");
      needs.forEach((nemesis, capability) -> assertThat(
          Nemeses.refusal(Nemeses.named(nemesis), new Plain(), runtime, 3, NONE))
          .as(nemesis)
          .contains("plain lacks the " + capability + " capability it needs (plain offers none)"));
      assertThat(Nemeses.refusal(Nemeses.named("kill"), new Pausable(), runtime, 3, NONE))
          .contains("plain lacks the kill capability it needs (plain offers pause)");
    }
  }

  @Test
  void aSystemWithTheCapabilityIsAskedOnlyTheNemesisOwnConditions() {
    try (NodeRuntime runtime = Runtimes.processes()) {
      assertThat(Nemeses.refusal(Nemeses.named("pause"), new Pausable(), runtime, 3, NONE))
          .isEmpty();
      // a partition needs no capability of the system, only a runtime that can cut the network
      assertThat(Nemeses.refusal(Nemeses.named("partition"), new Plain(), runtime, 3, NONE))
          .hasValueSatisfying(why -> assertThat(why).contains("cannot cut the network"));
      assertThat(Capability.names(new Pausable())).containsExactly("pause");
      assertThat(Capability.names(new Plain())).isEmpty();
    }
  }
}
