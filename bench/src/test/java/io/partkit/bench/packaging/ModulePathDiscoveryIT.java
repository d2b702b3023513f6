package io.partkit.bench.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged spi and strategy jars, in a child JVM, find all three strategies by name both on
 * the module path (through {@code uses} and {@code provides}; a named module ignores
 * {@code META-INF/services}, so a missing {@code provides} fails here) and on the class path
 * (through {@code META-INF/services}). The caller is a small named module, compiled here, that
 * requires only {@code io.partkit.spi}: the strategies are resolved by service binding alone.
 */
class ModulePathDiscoveryIT {

  /**
   * The caller: prints, per strategy found, its name and the module its provider is in, then
   * tries to create each strategy named in its arguments.
   */
  private static final String PROBE = """
      package io.partkit.probe;

      import io.partkit.spi.Partitioners;

      public final class Probe {
        public static void main(String[] args) {
          Partitioners loaded = Partitioners.load();
          System.out.println("spi " + Partitioners.class.getModule().getName());
          for (String name : loaded.names()) {
            System.out.println("strategy " + name + " "
                + loaded.provider(name).orElseThrow().getClass().getModule().getName());
          }
          System.out.println("failures " + loaded.loadFailures());
          for (String name : args) {
            try {
              System.out.println("created " + loaded.create(name).name());
            } catch (IllegalArgumentException e) {
              System.out.println("unknown " + e.getMessage());
            }
          }
        }
      }
      """;

  @TempDir static Path work;
  static Path probe;

  /** A jar failsafe was given (bench's pom passes the reactor's packaged jars). */
  static Path jar(String artifact) {
    String path = System.getProperty("partkit.jar." + artifact);
    assertThat(path).as("system property partkit.jar." + artifact).isNotBlank();
    Path file = Path.of(path);
    assertThat(file).as(artifact).isRegularFile();
    assertThat(file.getFileName().toString()).as("a packaged jar, not a classes directory")
        .endsWith(".jar");
    return file;
  }

  static List<Path> partkitJars() {
    return List.of(jar("spi"), jar("strategy-support"), jar("strategy-fixed"),
        jar("strategy-tokenring"), jar("strategy-rendezvous"));
  }

  @BeforeAll
  static void compileTheProbeModule() throws IOException {
    Path src = work.resolve("src");
    Files.createDirectories(src.resolve("io/partkit/probe"));
    Files.writeString(src.resolve("module-info.java"),
        "module io.partkit.probe { requires io.partkit.spi; }\n");
    Files.writeString(src.resolve("io/partkit/probe/Probe.java"), PROBE);
    probe = work.resolve("probe");
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = javac.run(null, err, err, "--release", "17", "-d", probe.toString(),
        "--module-path", jar("spi").toString(),
        src.resolve("module-info.java").toString(),
        src.resolve("io/partkit/probe/Probe.java").toString());
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
  }

  @Test
  void theModulePathFindsEveryStrategyThroughItsProvidesClause() throws Exception {
    String path = Stream.concat(partkitJars().stream(), Stream.of(probe))
        .map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    List<String> out = run("--module-path", path,
        "--module", "io.partkit.probe/io.partkit.probe.Probe", "rendezvous", "no-such-strategy");
    assertThat(out).containsExactly(
        "spi io.partkit.spi",
        "strategy fixed io.partkit.strategy.fixed",
        "strategy rendezvous io.partkit.strategy.rendezvous",
        "strategy tokenring io.partkit.strategy.tokenring",
        "failures []",
        "created rendezvous",
        "unknown unknown partitioning strategy 'no-such-strategy'; "
            + "known strategies: [fixed, rendezvous, tokenring]");
  }

  @Test
  void theClassPathFindsEveryStrategyThroughMetaInfServices() throws Exception {
    String path = Stream.concat(partkitJars().stream(), Stream.of(probe))
        .map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    List<String> out = run("-cp", path, "io.partkit.probe.Probe", "rendezvous",
        "no-such-strategy");
    // On the class path every class is in the unnamed module, whose name is null.
    assertThat(out).containsExactly(
        "spi null",
        "strategy fixed null",
        "strategy rendezvous null",
        "strategy tokenring null",
        "failures []",
        "created rendezvous",
        "unknown unknown partitioning strategy 'no-such-strategy'; "
            + "known strategies: [fixed, rendezvous, tokenring]");
  }

  @Test
  void aStrategyLeftOffTheModulePathIsNamedWithItsArtifact() throws Exception {
    String path = Stream.of(jar("spi"), jar("strategy-support"), jar("strategy-fixed"), probe)
        .map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    List<String> out = run("--module-path", path,
        "--module", "io.partkit.probe/io.partkit.probe.Probe", "tokenring");
    assertThat(out).containsExactly(
        "spi io.partkit.spi",
        "strategy fixed io.partkit.strategy.fixed",
        "failures []",
        "unknown unknown partitioning strategy 'tokenring': it is provided by "
            + "io.partkit:partkit-strategy-tokenring, which is not on the class path or module "
            + "path (add it as a dependency); known strategies: [fixed]");
  }

  /** Runs the current JVM's {@code java} with {@code args}; returns its output lines. */
  private static List<String> run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (var in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("child JVM finished").isTrue();
    assertThat(process.exitValue()).as(command + "\n" + output).isZero();
    return output.lines().collect(Collectors.toList());
  }
}
