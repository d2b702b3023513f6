package io.partkit.harness.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GrudgesTest {

  private static final List<String> FIVE = List.of("n1", "n2", "n3", "n4", "n5");

  @Test
  void halvesCutBothWays() {
    Map<String, Set<String>> g = Grudges.of("halves", FIVE);
    assertThat(g.get("n1")).containsExactlyInAnyOrder("n3", "n4", "n5");
    assertThat(g.get("n4")).containsExactlyInAnyOrder("n1", "n2");
  }

  @Test
  void isolateCutsOneNodeFromAllOthers() {
    Map<String, Set<String>> g = Grudges.of("isolate", FIVE);
    assertThat(g.get("n1")).containsExactlyInAnyOrder("n2", "n3", "n4", "n5");
    assertThat(g.get("n5")).containsExactly("n1");
  }

  @Test
  void theBridgeNodeReachesBothSides() {
    Map<String, Set<String>> g = Grudges.of("bridge", FIVE);
    assertThat(g).doesNotContainKey("n3");
    assertThat(g.get("n1")).containsExactlyInAnyOrder("n4", "n5");
    assertThat(g.get("n5")).containsExactlyInAnyOrder("n1", "n2");
  }

  @Test
  void inAMajoritiesRingEveryNodeSeesADifferentMajority() {
    Map<String, Set<String>> g = Grudges.of("majorities-ring", FIVE);
    Set<Set<String>> seen = new HashSet<>();
    for (String n : FIVE) {
      Set<String> sees = new HashSet<>(FIVE);
      sees.removeAll(g.getOrDefault(n, Set.of()));
      assertThat(sees).as("%s sees a majority", n).hasSizeGreaterThanOrEqualTo(3).contains(n);
      seen.add(sees);
    }
    assertThat(seen).hasSize(5);
  }

  @Test
  void anUnknownShapeIsRefused() {
    assertThatThrownBy(() -> Grudges.of("triangle", FIVE))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("triangle");
  }
}
