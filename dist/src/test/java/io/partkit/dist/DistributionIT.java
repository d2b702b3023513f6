package io.partkit.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archives the build made, unpacked into a directory of their own and run as a user runs
 * them: from there, with a bare environment (no Maven, no checkout on the way, Java found
 * through JAVA_HOME alone). {@code ./mvnw verify} runs it after dist is packaged; alone:
 * {@code ./mvnw -B verify -pl dist -am -Dtest=NONE
 * -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=DistributionIT
 * -Dfailsafe.failIfNoSpecifiedTests=false}.
 */
class DistributionIT {

  @TempDir static Path unpacked;
  static Path home;

  private record Run(int code, String out) {}

  @BeforeAll
  static void unpackTheTarball() throws Exception {
    Path tarball = Path.of(property("partkit.dist") + ".tar.gz");
    assertThat(tarball).as("the tarball dist's package phase makes").isRegularFile();
    Process tar = new ProcessBuilder("tar", "xzf", tarball.toString(), "-C", unpacked.toString())
        .inheritIO().start();
    assertThat(tar.waitFor()).as("tar xzf").isZero();
    home = unpacked.resolve("partkit-" + property("partkit.version"));
  }

  /** bin/partkit with {@code args}, from a directory that is no checkout, bare environment. */
  private static Run partkit(Path cwd, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(home.resolve("bin/partkit").toString()));
    command.addAll(List.of(args));
    Path log = Files.createTempFile(unpacked, "run", ".log");
    ProcessBuilder b = new ProcessBuilder(command).directory(cwd.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    b.environment().clear();
    b.environment().put("PATH", "/usr/bin:/bin");
    b.environment().put("JAVA_HOME", System.getProperty("java.home"));
    b.environment().put("HOME", cwd.toString());
    b.environment().putAll(env);
    Process p = b.start();
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor();
      throw new AssertionError("bin/partkit " + args[0] + " did not finish: "
          + Files.readString(log));
    }
    return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  @Test
  void theArchiveHoldsTheLauncherTheJarsTheReadmeAndTheThirdPartyNotices() throws IOException {
    assertThat(home.resolve("bin/partkit")).isExecutable();
    assertThat(home.resolve("bin/partkit.bat")).isRegularFile();
    assertThat(home.resolve("README.md")).isNotEmptyFile();
    assertThat(home.resolve("docs/harness.md")).isNotEmptyFile();
    assertThat(home.resolve("tools/build-node-image")).isExecutable();
    String launcher = Files.readString(home.resolve("bin/partkit"));
    // the flags ./partkit reads from the root pom, written in verbatim
    String pom = Files.readString(root().resolve("pom.xml"));
    for (String product : List.of("ignite", "hazelcast")) {
      Matcher flags = Pattern.compile("<" + product + ".jvm.opens>(.*)</" + product
          + ".jvm.opens>").matcher(pom);
      assertThat(flags.find()).as(product + ".jvm.opens in the root pom").isTrue();
      assertThat(launcher).as("bin/partkit passes " + product + "'s flags")
          .contains(flags.group(1));
    }
    assertThat(launcher).contains("--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
        .doesNotContain("@ignite.jvm.opens@").doesNotContain("@hazelcast.jvm.opens@");
    assertThat(Files.readString(home.resolve("bin/partkit-jvm-options.sh")))
        .as("the per-command options: the very file ./partkit sources")
        .isEqualTo(Files.readString(root().resolve("dist/src/bin/partkit-jvm-options.sh")));
    assertThat(Files.readString(home.resolve("bin/partkit.bat")))
        .doesNotContain("@ignite.jvm.opens@").contains("\r\n");

    List<String> jars;
    try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
      jars = lib.map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertThat(jars).contains("partkit-cli-" + property("partkit.version") + ".jar",
        "picocli-4.7.7.jar");
    String notices = Files.readString(home.resolve("THIRD-PARTY.txt"));
    for (String jar : jars) {
      if (!jar.startsWith("partkit-")) {
        // <artifact>-<version>[-classifier].jar is listed as (licence) name (group:artifact:...
        Matcher m = Pattern.compile("^(.+?)-\\d").matcher(jar);
        assertThat(m.find()).as(jar).isTrue();
        assertThat(notices).as("THIRD-PARTY.txt lists " + jar).contains(":" + m.group(1) + ":");
      }
    }
    assertThat(notices).doesNotContain("Unknown license");

    // the zip holds the same files
    TreeSet<String> zipped = new TreeSet<>();
    try (ZipFile zip = new ZipFile(property("partkit.dist") + ".zip")) {
      Enumeration<? extends ZipEntry> entries = zip.entries();
      while (entries.hasMoreElements()) {
        ZipEntry e = entries.nextElement();
        if (!e.isDirectory()) {
          zipped.add(e.getName());
        }
      }
    }
    TreeSet<String> tarred = new TreeSet<>();
    try (Stream<Path> files = Files.walk(home)) {
      files.filter(Files::isRegularFile).forEach(f -> tarred.add(unpacked.relativize(f)
          .toString()));
    }
    assertThat(zipped).isEqualTo(tarred);
  }

  @Test
  void systemsListsPartkitsOwnSystemsFromAnywhere(@TempDir Path cwd) throws Exception {
    Run r = partkit(cwd, Map.of(), "systems");
    assertThat(r.code()).as(r.out()).isZero();
    assertThat(r.out()).contains("etcd ").contains("hazelcast ").contains("ignite ")
        .contains("kv ").contains("capabilities: kill, pause");
  }

  @Test
  void checkAnswersValidAndInvalidWithItsExitCodes(@TempDir Path cwd) throws Exception {
    Files.writeString(cwd.resolve("valid.edn"), String.join("\n",
        "{:process 0, :type :invoke, :f :write, :value 1}",
        "{:process 0, :type :ok, :f :write, :value 1}",
        "{:process 1, :type :invoke, :f :read, :value nil}",
        "{:process 1, :type :ok, :f :read, :value 1}", ""));
    Files.writeString(cwd.resolve("invalid.edn"), String.join("\n",
        "{:process 0, :type :invoke, :f :write, :value 1}",
        "{:process 0, :type :ok, :f :write, :value 1}",
        "{:process 1, :type :invoke, :f :read, :value nil}",
        "{:process 1, :type :ok, :f :read, :value 2}", ""));
    Run valid = partkit(cwd, Map.of(), "check", "valid.edn");
    assertThat(valid.code()).as(valid.out()).isZero();
    assertThat(valid.out()).contains("valid");
    Run invalid = partkit(cwd, Map.of(), "check", "invalid.edn");
    assertThat(invalid.code()).as(invalid.out()).isEqualTo(1);
    assertThat(invalid.out()).contains("invalid");
  }

  /** The comparative report, from the distribution alone, at its smallest. */
  @Test
  void benchWritesItsReport(@TempDir Path cwd) throws Exception {
    Run r = partkit(cwd, Map.of("PARTKIT_JAVA_OPTS", "-Xmx512m"), "bench", "--quick", "--quiet",
        "--sizes", "10", "--weights", "equal", "--replicas", "1", "--keys", "20000",
        "--lookup-ms", "20", "--lookup-rounds", "1", "--out", "report");
    assertThat(r.code()).as(r.out()).isZero();
    assertThat(cwd.resolve("report/index.html")).isNotEmptyFile();
  }

  /** The simulator, from the distribution alone. */
  @Test
  void simulateRunsSeedsAndEndsWithItsSummaryLine(@TempDir Path cwd) throws Exception {
    Run r = partkit(cwd, Map.of(), "simulate", "--seeds", "1..2", "--time", "2s");
    assertThat(r.code()).as(r.out()).isZero();
    assertThat(r.out()).containsPattern("simulate: seeds=2 valid=2 invalid=0 unknown=0 ops=\\d+");
  }

  /** A short kv run: node processes started from lib/ alone, checked and stored. */
  @Test
  void verifyRunsAShortKvTestAndStoresIt(@TempDir Path cwd) throws Exception {
    Run r = partkit(cwd, Map.of("PARTKIT_JAVA_OPTS", "-Xmx256m"), "verify", "--system", "kv",
        "--nodes", "3", "--time", "4s", "--concurrency", "3", "--rate", "50", "--seed", "3");
    assertThat(r.code()).as(r.out()).isZero();
    assertThat(r.out()).contains("valid: ").contains("replicas=3");
    assertThat(cwd.resolve("store/latest/results.edn")).isNotEmptyFile();
  }

  /**
   * A system of the user's own, from the distribution alone: its provider in one jar
   * ({@code --system-jar}), a class it needs in another ({@code PARTKIT_CLASSPATH}), both
   * compiled here against lib/. Without the second, the provider fails to load, and says so.
   */
  @Test
  void aSystemOfOneselfRunsFromASystemJarWithItsDependencyInPartkitClasspath(@TempDir Path cwd)
      throws Exception {
    Path provider = jar(cwd, "provider", "example/own/Provider.java", """
        package example.own;
        import io.partkit.harness.system.*;
        import java.util.List;
        import java.util.Map;
        import java.util.concurrent.ConcurrentHashMap;
        public final class Provider implements SystemProvider {
          public String name() { return "own"; }
          private final String description = example.dep.Words.description();
          public String description() { return description; }
          public int defaultNodes() { return 1; }
          public SystemUnderTest create() {
            Map<Long, Long> registers = new ConcurrentHashMap<>();
            return new SystemUnderTest() {
              public String name() { return "own"; }
              public void start(SystemContext context) {}
              public List<String> nodes() { return List.of("o1"); }
              public Client openClient() {
                return new Client() {
                  public Outcome invoke(Operation op) {
                    if (op.f().equals(Operation.READ)) {
                      return Outcome.ok(registers.get(op.key()));
                    }
                    if (op.f().equals(Operation.WRITE)) {
                      registers.put(op.key(), (Long) op.value());
                      return Outcome.ok(op.value());
                    }
                    boolean set = op.casExpected() == null
                        ? registers.putIfAbsent(op.key(), op.casNew()) == null
                        : registers.replace(op.key(), op.casExpected(), op.casNew());
                    return set ? Outcome.ok(op.value()) : Outcome.mismatch(op.value(), "other");
                  }
                  public void close() {}
                };
              }
              public void close() {}
            };
          }
        }
        """, "package example.dep; public final class Words {"
            + " public static String description() { return \"a register of its own\"; } }",
        "example.own.Provider");
    Path dependency = cwd.resolve("dep.jar");

    Run listed = partkit(cwd, Map.of("PARTKIT_CLASSPATH", dependency.toString()), "systems",
        "--system-jar", provider.toString());
    assertThat(listed.code()).as(listed.out()).isZero();
    assertThat(listed.out()).contains("own        a register of its own");

    Run missing = partkit(cwd, Map.of(), "systems", "--system-jar", provider.toString());
    assertThat(missing.code()).as("a provider that fails to load: " + missing.out())
        .isEqualTo(1);
    assertThat(missing.out()).contains("failed to load").contains("example/dep/Words");

    Run run = partkit(cwd, Map.of("PARTKIT_CLASSPATH", dependency.toString()), "verify",
        "--system-jar", provider.toString(), "--system", "own", "--time", "2s",
        "--concurrency", "2", "--rate", "50");
    assertThat(run.code()).as(run.out()).isZero();
    assertThat(run.out()).contains("valid: ");
  }

  /**
   * {@code name}.jar holding {@code source} (at {@code path}) and, in dep.jar beside it,
   * {@code dependency}, both compiled against lib/ with the JDK's javac; the first jar lists
   * {@code provider} in META-INF/services.
   */
  private static Path jar(Path dir, String name, String path, String source, String dependency,
      String provider) throws Exception {
    Path src = dir.resolve("src");
    Files.createDirectories(src.resolve(path).getParent());
    Files.writeString(src.resolve(path), source);
    Files.createDirectories(src.resolve("example/dep"));
    Files.writeString(src.resolve("example/dep/Words.java"), dependency);
    Path classes = Files.createDirectories(dir.resolve("classes"));
    String lib;
    try (Stream<Path> jars = Files.list(home.resolve("lib"))) {
      // javac run in-process expands no wildcard: the jars one by one
      lib = String.join(java.io.File.pathSeparator, jars.map(Path::toString).toList());
    }
    int code = javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null,
        "-d", classes.toString(), "-cp", lib,
        src.resolve(path).toString(), src.resolve("example/dep/Words.java").toString());
    assertThat(code).as("javac").isZero();
    Path jar = dir.resolve(name + ".jar");
    try (java.util.jar.JarOutputStream out = new java.util.jar.JarOutputStream(
        Files.newOutputStream(jar));
        java.util.jar.JarOutputStream dep = new java.util.jar.JarOutputStream(
            Files.newOutputStream(dir.resolve("dep.jar")));
        Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String entry = classes.relativize(f).toString();
        java.util.jar.JarOutputStream to = entry.startsWith("example/dep/") ? dep : out;
        to.putNextEntry(new java.util.jar.JarEntry(entry));
        Files.copy(f, to);
      }
      out.putNextEntry(new java.util.jar.JarEntry(
          "META-INF/services/io.partkit.harness.system.SystemProvider"));
      out.write((provider + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return jar;
  }

  /** The repository's root: {@code $PARTKIT_ROOT}, which failsafe sets, else the parent. */
  private static Path root() {
    String root = System.getenv("PARTKIT_ROOT");
    return Path.of(root == null ? ".." : root).toAbsolutePath().normalize();
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    assertThat(value).as("system property " + name + " (dist's failsafe configuration sets it)")
        .isNotBlank();
    return value;
  }
}
