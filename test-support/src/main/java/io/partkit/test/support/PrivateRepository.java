package io.partkit.test.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A local Maven repository of a test's own, and the Maven that runs the build, started on a
 * project outside the reactor with that repository: how the packaging tests build a user's
 * project against partkit without installing anything where other builds look.
 *
 * <p>partkit's poms and packaged jars are copied in ({@link #install}); everything else is read
 * from the build's local repository as a read-only tail ({@code maven.repo.local.tail}, Maven
 * 3.9). The Maven and that repository come from the system properties {@code maven.home} and
 * {@code partkit.localRepository}, which the module's failsafe configuration sets.
 */
public final class PrivateRepository {

  /** What a Maven run ended with: its exit code, and its command line and output. */
  public record Result(int code, String output) {}

  private final Path dir;
  private final String version;

  /** A repository in {@code dir} (created on the first install) for partkit {@code version}. */
  public PrivateRepository(Path dir, String version) {
    this.dir = dir;
    this.version = version;
  }

  /** The repository's directory. */
  public Path dir() {
    return dir;
  }

  /**
   * Copies {@code pom}, and {@code jar} unless it is null, in as {@code io.partkit:artifact} at
   * this repository's version.
   */
  public void install(String artifact, Path pom, Path jar) throws IOException {
    Path at = Files.createDirectories(dir.resolve("io/partkit").resolve(artifact).resolve(version));
    Files.copy(pom, at.resolve(artifact + "-" + version + ".pom"));
    if (jar != null) {
      Files.copy(jar, at.resolve(artifact + "-" + version + ".jar"));
    }
  }

  /**
   * Runs Maven on {@code pom} with {@code arguments} (goals and options), offline unless
   * {@code offline} is false (then what is in neither repository is downloaded into this one),
   * with a small heap; waits up to {@code timeout}, then kills it.
   *
   * @throws IllegalStateException when a system property is missing or Maven did not finish
   */
  public Result maven(Path pom, boolean offline, Duration timeout, String... arguments)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(property("maven.home"), "bin", "mvn").toString(), "-B"));
    if (offline) {
      command.add("-o");
    }
    command.addAll(List.of("-f", pom.toString(), "-Dmaven.repo.local=" + dir,
        "-Dmaven.repo.local.tail=" + property("partkit.localRepository")));
    command.addAll(List.of(arguments));
    Path log = Files.createTempFile(dir.getParent(), "maven", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().remove("MAVEN_ARGS");
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    // A short-lived Maven: a small heap, and C1 only (it starts faster on a busy machine).
    builder.environment().put("MAVEN_OPTS", "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    Process process = builder.start();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly().waitFor();
      throw new IllegalStateException("Maven did not finish within " + timeout + ": " + command
          + "\n" + Files.readString(log, StandardCharsets.UTF_8));
    }
    return new Result(process.exitValue(),
        command + "\n" + Files.readString(log, StandardCharsets.UTF_8));
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException("system property " + name
          + " is not set (the module's failsafe configuration passes it)");
    }
    return value;
  }
}
