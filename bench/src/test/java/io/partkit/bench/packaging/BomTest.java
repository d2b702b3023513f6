package io.partkit.bench.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * {@code bom/pom.xml} lists every published module of the reactor, at the reactor's version, and
 * nothing else: a module added to the root pom and forgotten here fails this test (harness-it,
 * tests only, is not published; dist is an archive to unpack, nothing a build depends on).
 */
class BomTest {

  private static final Document BOM = Reactor.pom(Reactor.root().resolve("bom/pom.xml"));

  @Test
  void listsEveryModuleOfTheReactorAndNothingElse() {
    // harness-it holds tests only and is neither installed nor published; dist is an archive
    List<String> expected = Reactor.modules().stream()
        .filter(m -> !m.equals("bom") && !m.equals("harness-it") && !m.equals("dist"))
        .map(m -> Reactor.text(Reactor.pom(Reactor.root().resolve(m).resolve("pom.xml")),
            "/project/artifactId"))
        .collect(Collectors.toList());
    assertThat(expected).as("the reactor's modules").hasSizeGreaterThanOrEqualTo(15)
        .contains("partkit-spi", "partkit-testkit", "partkit-strategy-fixed", "partkit-cli");

    String managed = "/project/dependencyManagement/dependencies/dependency";
    assertThat(Reactor.texts(BOM, managed + "/artifactId"))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(Reactor.texts(BOM, managed + "/groupId")).hasSize(expected.size())
        .containsOnly("io.partkit");
    assertThat(Reactor.texts(BOM, managed + "/version")).hasSize(expected.size())
        .containsOnly("${project.version}");
    assertThat(Reactor.texts(BOM, managed + "/scope")).as("no imported BOMs, no scopes").isEmpty();
    assertThat(Reactor.texts(BOM, managed + "/type")).as("main artifacts only").isEmpty();
  }

  @Test
  void hasNoParentSoNothingThirdPartyIsInheritedAndFollowsTheReactorVersion() {
    assertThat(Reactor.texts(BOM, "/project/parent")).isEmpty();
    assertThat(Reactor.texts(BOM, "/project/dependencies")).isEmpty();
    assertThat(Reactor.texts(BOM, "/project/properties")).isEmpty();
    assertThat(Reactor.text(BOM, "/project/groupId")).isEqualTo("io.partkit");
    assertThat(Reactor.text(BOM, "/project/artifactId")).isEqualTo("partkit-bom");
    assertThat(Reactor.text(BOM, "/project/packaging")).isEqualTo("pom");
    Document root = Reactor.pom(Reactor.root().resolve("pom.xml"));
    assertThat(Reactor.text(BOM, "/project/version"))
        .isEqualTo(Reactor.text(root, "/project/version")).isNotEmpty();
  }
}
