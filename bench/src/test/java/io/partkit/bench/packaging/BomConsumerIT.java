package io.partkit.bench.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
  Path repo;
  String version;

  @BeforeEach
  void installPartkitIntoAPrivateRepository() throws IOException {
    Path root = Reactor.root();
    version = Reactor.text(Reactor.pom(root.resolve("pom.xml")), "/project/version");
    repo = work.resolve("repo");
    install("partkit-parent", root.resolve("pom.xml"), null);
    install("partkit-bom", root.resolve("bom/pom.xml"), null);
    install("partkit-spi", root.resolve("spi/pom.xml"), ModulePathDiscoveryIT.jar("spi"));
    install("partkit-strategy-rendezvous", root.resolve("strategy-rendezvous/pom.xml"),
        ModulePathDiscoveryIT.jar("strategy-rendezvous"));
  }

  private void install(String artifact, Path pom, Path jar) throws IOException {
    Path dir =
        Files.createDirectories(repo.resolve("io/partkit").resolve(artifact).resolve(version));
    Files.copy(pom, dir.resolve(artifact + "-" + version + ".pom"));
    if (jar != null) {
      Files.copy(jar, dir.resolve(artifact + "-" + version + ".jar"));
    }
  }

  @Test
  void aStrategyNeedsNoVersionAndBringsOnlyTheSpi() throws Exception {
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
    assertThat(result.code).as(result.output).isZero();
    List<String> entries = Arrays.stream(Files.readString(classpath).trim()
        .split(File.pathSeparator)).collect(Collectors.toList());
    assertThat(entries).as("resolved from the private repository").allSatisfy(
        e -> assertThat(Path.of(e)).startsWith(repo));
    assertThat(entries).map(e -> Path.of(e).getFileName().toString()).containsExactlyInAnyOrder(
        "partkit-strategy-rendezvous-" + version + ".jar", "partkit-spi-" + version + ".jar");
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
    assertThat(result.code).as(result.output).isNotZero();
    assertThat(result.output)
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

  private record Result(int code, String output) {}

  /** Runs the Maven that runs this build, offline, on {@code pom}. */
  private Result maven(Path pom, String... goals) throws IOException, InterruptedException {
    String home = System.getProperty("maven.home");
    String local = System.getProperty("partkit.localRepository");
    assertThat(home).as("system property maven.home").isNotBlank();
    assertThat(local).as("system property partkit.localRepository").isNotBlank();
    List<String> command = new ArrayList<>(List.of(
        Path.of(home, "bin", "mvn").toString(), "-B", "-o", "-f", pom.toString(),
        "-Dmaven.repo.local=" + repo, "-Dmaven.repo.local.tail=" + local));
    command.addAll(List.of(goals));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().remove("MAVEN_ARGS");
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    // A short-lived Maven: a small heap, and C1 only (it starts faster on a busy machine).
    builder.environment().put("MAVEN_OPTS", "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    Process process = builder.start();
    String output;
    try (var in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("maven finished").isTrue();
    return new Result(process.exitValue(), command + "\n" + output);
  }
}
