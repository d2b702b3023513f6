package io.partkit.bench.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.test.support.PrivateRepository;
import io.partkit.test.support.PrivateRepository.Result;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer project imports partkit-bom and depends on a strategy without a version, built by
 * Maven, offline. partkit's poms and packaged jars go to a local repository of the test's own;
 * everything else is read from the build's local repository as a read-only tail
 * ({@code maven.repo.local.tail}, Maven 3.9), so nothing is installed where other builds look.
 */
class BomConsumerIT {

  @TempDir Path work;
  PrivateRepository repo;
  String version;

  @BeforeEach
  void installPartkitIntoAPrivateRepository() throws IOException {
    Path root = Reactor.root();
    version = Reactor.text(Reactor.pom(root.resolve("pom.xml")), "/project/version");
    repo = new PrivateRepository(work.resolve("repo"), version);
    repo.install("partkit-parent", root.resolve("pom.xml"), null);
    repo.install("partkit-bom", root.resolve("bom/pom.xml"), null);
    repo.install("partkit-spi", root.resolve("spi/pom.xml"), ModulePathDiscoveryIT.jar("spi"));
    repo.install("partkit-strategy-support", root.resolve("strategy-support/pom.xml"),
        ModulePathDiscoveryIT.jar("strategy-support"));
    repo.install("partkit-strategy-rendezvous", root.resolve("strategy-rendezvous/pom.xml"),
        ModulePathDiscoveryIT.jar("strategy-rendezvous"));
  }

  @Test
  void aStrategyNeedsNoVersionAndBringsOnlyTheSpiAndStrategySupport() throws Exception {
    Path consumer =
        consumer(
            """
            <dependency>
              <groupId>io.partkit</groupId>
              <artifactId>partkit-strategy-rendezvous</artifactId>
            </dependency>\
            """);
    Path classpath = work.resolve("classpath.txt");
    String dependencyPlugin = "org.apache.maven.plugins:maven-dependency-plugin:"
        + Reactor.text(Reactor.pom(Reactor.root().resolve("pom.xml")),
            "/project/build/pluginManagement/plugins/plugin"
                + "[artifactId='maven-dependency-plugin']/version");
    Result result = maven(consumer, dependencyPlugin + ":build-classpath",
        "-Dmdep.outputFile=" + classpath, "-Dmdep.includeScope=runtime");
    assertThat(result.code()).as(result.output()).isZero();
    List<String> entries = Arrays.stream(Files.readString(classpath).trim()
        .split(File.pathSeparator)).collect(Collectors.toList());
    assertThat(entries).as("resolved from the private repository").allSatisfy(
        e -> assertThat(Path.of(e)).startsWith(repo.dir()));
    assertThat(entries).map(e -> Path.of(e).getFileName().toString()).containsExactlyInAnyOrder(
        "partkit-strategy-rendezvous-" + version + ".jar", "partkit-spi-" + version + ".jar",
        "partkit-strategy-support-" + version + ".jar");
  }

  @Test
  void theBomPinsNothingThirdParty() throws Exception {
    // partkit-parent pins Guava; a consumer of the BOM must still choose its own version.
    Path consumer =
        consumer(
            """
            <dependency>
              <groupId>com.google.guava</groupId>
              <artifactId>guava</artifactId>
            </dependency>\
            """);
    Result result = maven(consumer, "validate");
    assertThat(result.code()).as(result.output()).isNotZero();
    assertThat(result.output())
        .contains("'dependencies.dependency.version' for com.google.guava:guava:jar is missing");
  }

  /** A consumer pom that imports partkit-bom and has {@code dependencies}; returns its path. */
  private Path consumer(String dependencies) throws IOException {
    Path dir = Files.createDirectories(work.resolve("consumer"));
    Files.writeString(
        dir.resolve("pom.xml"),
        """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>com.example</groupId>
          <artifactId>consumer</artifactId>
          <version>1</version>
          <dependencyManagement>
            <dependencies>
              <dependency>
                <groupId>io.partkit</groupId>
                <artifactId>partkit-bom</artifactId>
                <version>%s</version>
                <type>pom</type>
                <scope>import</scope>
              </dependency>
            </dependencies>
          </dependencyManagement>
          <dependencies>
        %s
          </dependencies>
        </project>
        """
            .formatted(version, dependencies.indent(4)));
    return dir.resolve("pom.xml");
  }

  /** Runs the Maven that runs this build, offline, on {@code pom}. */
  private Result maven(Path pom, String... goals) throws IOException, InterruptedException {
    return repo.maven(pom, true, Duration.ofMinutes(2), goals);
  }
}
