package io.partkit.maven;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.test.support.PrivateRepository;
import io.partkit.test.support.PrivateRepository.Result;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code examples/own-system}, a project outside the reactor with a system of its own, passes
 * {@code mvn verify} with the partkit this build packaged, as its pom says: its test
 * (RegisterVerifyTest: {@code partkit verify} through partkit-cli, the planted bug caught) and
 * then partkit-maven-plugin's verify goal, which runs the system from the project's classes
 * under kills and pauses and must find it valid; then, offline, {@code mvn verify -Pvolatile},
 * the mode with the planted bug, whose build must fail with the plugin's invalid verdict line.
 *
 * <p>This build's plugin and every partkit jar it runs with are copied, with their poms, the
 * parent pom and the BOM, into a local repository of the test's own ({@link PluginRepository});
 * everything else comes from the build's local repository as a read-only tail. The example is
 * copied out of the source tree and built there, so its {@code target} never lands in the
 * repository.
 *
 * <p>Not offline, unlike the other packaging tests: the BOM pins no third-party version (as a
 * BOM for users should not), and Maven applies only the building project's dependencyManagement
 * to transitive dependencies, not that of partkit's root pom (which imports netty-bom for jetcd's
 * sake), so the example's build reads versions partkit's own build does not use (about 34
 * files: the poms of the gRPC and Netty versions jetcd asks for, which Maven reads to
 * mediate, and a few jars). Maven downloads them from Maven Central into the private repository,
 * as it would for a user, on every run (the repository is the test's own). The class path it ends
 * with must hold one Netty line and one gRPC line (partkit-coordinator-etcd's pom sees to the
 * first: without it the example ran with Netty 4.1.133 jars beside 4.2.15 ones). Needs Java
 * and network access to Maven Central, nothing else. {@code ./mvnw verify} runs it (failsafe,
 * after the plugin is packaged); alone: {@code ./mvnw -B verify -pl maven-plugin -am -Dtest=NONE
 * -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=OwnSystemExampleIT
 * -Dfailsafe.failIfNoSpecifiedTests=false}.
 */
class OwnSystemExampleIT {

  private record Counts(int tests, int failures, int errors, int skipped) {}

  private record Report(Counts counts, String classPath) {}

  @TempDir Path work;

  @Test
  void theExamplesTestPassesAndThePluginFindsItsSystemValid() throws Exception {
    Path root = PluginRepository.root();
    PrivateRepository repo = PluginRepository.create(work.resolve("repo"));
    Path example = PluginRepository.copy(root.resolve("examples/own-system"), work);

    Result result = repo.maven(example.resolve("pom.xml"), false, Duration.ofMinutes(15),
        // The test's JVM stays small (the register nodes it starts take 64m each).
        "-DargLine=-Xmx256m -XX:+UseSerialGC", "-Dpartkit.jvmArgs=-Xmx256m", "verify");
    System.out.println("examples/own-system: " + result.output().lines()
        .filter(l -> l.contains("Downloaded from")).count()
        + " files downloaded into the private repository");

    assertThat(result.code()).as(result.output()).isZero();
    // the plugin's run: the verdict line, with the options in force and the run's directory
    assertThat(result.output()).contains("--- partkit:" + PluginRepository.property(
        "partkit.version") + ":verify (registers-under-faults)")
        .containsPattern("\\[INFO\\] valid: .*options durable=true; .*"
            + "target/partkit-store/register/");
    Report report = surefire(example.resolve(
        "target/surefire-reports/TEST-example.register.RegisterVerifyTest.xml"));
    assertThat(report.counts()).as(result.output()).isEqualTo(new Counts(
        testMethods(example.resolve(
            "src/test/java/example/register/RegisterVerifyTest.java")), 0, 0, 0));
    List<String> partkitJars = Stream.of(report.classPath().split(File.pathSeparator))
        .filter(e -> Path.of(e).getFileName().toString().startsWith("partkit-")).toList();
    assertThat(partkitJars).as("partkit on the class path the example's test ran with")
        .isNotEmpty()
        .allSatisfy(e -> assertThat(Path.of(e)).as("from the private repository")
            .startsWith(repo.dir()));
    // Mixed Netty lines (4.1 jars beside 4.2 ones) fail at run time, far from the cause:
    // partkit-coordinator-etcd's pom declares what keeps a user's project on one.
    assertThat(versions(report.classPath(), "io/netty", "netty-tcnative"))
        .as("Netty versions on the example's test class path").hasSize(1);
    assertThat(versions(report.classPath(), "io/grpc", null))
        .as("gRPC versions on the example's test class path").hasSize(1);

    // the planted bug, caught by the plugin: the build fails with the verdict line and the run
    Result bug = repo.maven(example.resolve("pom.xml"), true, Duration.ofMinutes(10),
        "-Pvolatile", "-DskipTests", "-Dpartkit.jvmArgs=-Xmx256m", "verify");
    assertThat(bug.code()).as(bug.output()).isEqualTo(1);
    assertThat(bug.output()).contains("BUILD FAILURE")
        .containsPattern("\\[ERROR\\] .*partkit verify: invalid: .*acknowledged writes lost.*"
            + "options durable=false; .*target/partkit-store/register/");
  }

  /**
   * The versions of the jars of a Maven group ({@code groupPath}, as in a repository's layout)
   * on {@code classPath}, leaving out artifacts named with {@code except} (versioned apart).
   */
  private static Set<String> versions(String classPath, String groupPath, String except) {
    Set<String> versions = new TreeSet<>();
    for (String entry : classPath.split(File.pathSeparator)) {
      Path jar = Path.of(entry);
      // <repository>/<group path>/<artifact>/<version>/<artifact>-<version>.jar
      if (jar.getNameCount() < 3 || !jar.toString().replace(File.separatorChar, '/')
          .contains("/" + groupPath + "/")) {
        continue;
      }
      String artifact = jar.getParent().getParent().getFileName().toString();
      if (except == null || !artifact.startsWith(except)) {
        versions.add(jar.getParent().getFileName().toString());
      }
    }
    return versions;
  }

  /** A surefire report's counts and the test class path it records. */
  private static Report surefire(Path file) throws Exception {
    assertThat(file).as("surefire's report of the example's test").isRegularFile();
    Element suite = DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(file.toFile()).getDocumentElement();
    String classPath = "";
    NodeList properties = suite.getElementsByTagName("property");
    for (int i = 0; i < properties.getLength(); i++) {
      Element property = (Element) properties.item(i);
      if (property.getAttribute("name").equals("surefire.test.class.path")) {
        classPath = property.getAttribute("value");
      }
    }
    return new Report(new Counts(Integer.parseInt(suite.getAttribute("tests")),
        Integer.parseInt(suite.getAttribute("failures")),
        Integer.parseInt(suite.getAttribute("errors")),
        Integer.parseInt(suite.getAttribute("skipped"))), classPath);
  }

  /** How many {@code @Test} methods a test class's source declares. */
  private static int testMethods(Path source) throws IOException {
    Matcher m = Pattern.compile("^\\s*@Test\\s*$", Pattern.MULTILINE)
        .matcher(Files.readString(source));
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
