package io.partkit.maven;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.test.support.PrivateRepository;
import io.partkit.test.support.PrivateRepository.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code partkit:check} in a user's build: a project outside the reactor binds the goal to its
 * verify phase, and a child Maven (offline, against a private repository holding this build's
 * plugin) builds it once on a valid history, which passes, and once on an invalid one, which
 * fails the build with partkit's verdict line. Alone: {@code ./mvnw -B verify -pl maven-plugin
 * -am -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=CheckGoalIT
 * -Dfailsafe.failIfNoSpecifiedTests=false}.
 */
class CheckGoalIT {

  @TempDir static Path work;
  static PrivateRepository repo;
  static Path project;

  @BeforeAll
  static void aProjectUsingThePlugin() throws Exception {
    repo = PluginRepository.create(work.resolve("repo"));
    project = Files.createDirectories(work.resolve("project"));
    Files.writeString(project.resolve("pom.xml"), """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>example</groupId>
          <artifactId>histories</artifactId>
          <version>1.0</version>
          <packaging>pom</packaging>
          <build>
            <plugins>
              <plugin>
                <groupId>io.partkit</groupId>
                <artifactId>partkit-maven-plugin</artifactId>
                <version>%s</version>
                <executions>
                  <execution>
                    <goals><goal>check</goal></goals>
                    <configuration>
                      <histories><history>${history}</history></histories>
                      <model>register</model>
                    </configuration>
                  </execution>
                </executions>
              </plugin>
            </plugins>
          </build>
        </project>
        """.formatted(PluginRepository.property("partkit.version")));
    Files.writeString(project.resolve("valid.edn"), String.join("\n",
        "{:process 0, :type :invoke, :f :write, :value 1}",
        "{:process 0, :type :ok, :f :write, :value 1}",
        "{:process 1, :type :invoke, :f :read, :value nil}",
        "{:process 1, :type :ok, :f :read, :value 1}", ""));
    Files.writeString(project.resolve("invalid.edn"), String.join("\n",
        "{:process 0, :type :invoke, :f :write, :value 1}",
        "{:process 0, :type :ok, :f :write, :value 1}",
        "{:process 1, :type :invoke, :f :read, :value nil}",
        "{:process 1, :type :ok, :f :read, :value 2}", ""));
  }

  private static Result verify(String history) throws Exception {
    return repo.maven(project.resolve("pom.xml"), true, Duration.ofMinutes(5),
        "-Dhistory=" + project.resolve(history), "verify");
  }

  @Test
  void aValidHistoryPassesTheBuild() throws Exception {
    Result r = verify("valid.edn");
    assertThat(r.code()).as(r.output()).isZero();
    assertThat(r.output()).contains("--- partkit:").contains(": valid (register")
        .contains("BUILD SUCCESS");
  }

  @Test
  void anInvalidHistoryFailsTheBuildWithTheVerdictLine() throws Exception {
    Result r = verify("invalid.edn");
    assertThat(r.code()).as(r.output()).isEqualTo(1);
    assertThat(r.output()).contains("BUILD FAILURE")
        .containsPattern("\\[ERROR\\] .*partkit check: .*invalid\\.edn: invalid \\(register")
        .contains("read 2 but the register holds 1");
  }
}
