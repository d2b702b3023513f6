package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.system.JavaCommand;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --system-jar}: a user's system found in its own jar, and the bad jars refused before
 * anything starts with a usage error naming the file.
 */
class SystemJarTest {

  @TempDir Path dir;

  private record Run(int code, String out, String err) {}

  private static Run partkit(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.commandLine(new PartkitCommand()).setOut(new PrintWriter(out))
        .setErr(new PrintWriter(err)).execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void aSystemInAJarOfItsOwnIsListedBesidePartkitsOwn() throws Exception {
    Path jar = providerJar("one", "example.one", "solo");
    Run r = partkit("systems", "--system-jar", jar.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("solo       a test system").contains("kv ");
  }

  @Test
  void aJarListingNoProviderIsRefusedNamingIt() throws Exception {
    Path jar = dir.resolve("empty.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry("README.txt"));
      out.write("nothing".getBytes(StandardCharsets.UTF_8));
    }
    Run r = partkit("verify", "--system", "kv", "--system-jar", jar.toString(),
        "--store", dir.resolve("store").toString());
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.USAGE);
    assertThat(r.err()).contains(jar.toString()).contains("lists no system");
    assertThat(dir.resolve("store")).as("refused before anything ran").doesNotExist();
  }

  @Test
  void aMissingJarIsRefusedNamingIt() {
    Path jar = dir.resolve("nowhere.jar");
    Run r = partkit("verify", "--system", "kv", "--system-jar", jar.toString());
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.err()).contains(jar.toString()).contains("does not exist");
  }

  @Test
  void twoProvidersWithOneNameAreRefusedNamingBothFiles() throws Exception {
    Path a = providerJar("a", "example.a", "twin");
    Path b = providerJar("b", "example.b", "twin");
    Run r = partkit("verify", "--system", "twin", "--system-jar", a.toString(),
        "--system-jar", b.toString(), "--store", dir.resolve("store").toString());
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.USAGE);
    assertThat(r.err()).contains("two systems are named 'twin'")
        .contains("example.a.Provider in " + a).contains("example.b.Provider in " + b);
    assertThat(dir.resolve("store")).as("refused before anything ran").doesNotExist();
  }

  @Test
  void aProviderTakingTheNameOfPartkitsOwnIsRefusedNamingBothFiles() throws Exception {
    Path jar = providerJar("kv", "example.kv", "kv");
    Run r = partkit("verify", "--system", "kv", "--system-jar", jar.toString(),
        "--store", dir.resolve("store").toString());
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.USAGE);
    assertThat(r.err()).contains("two systems are named 'kv'").contains(jar.toString())
        .containsPattern("partkit-harness-kv|harness-kv/target/classes");
  }

  @Test
  void theSameProviderInTwoJarsIsRefusedNamingBoth() throws Exception {
    Path a = providerJar("first", "example.same", "same");
    Path b = providerJar("second", "example.same", "same");
    Run r = partkit("systems", "--system-jar", a.toString(), "--system-jar", b.toString());
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.err()).contains(a.toString()).contains(b.toString())
        .contains("example.same.Provider");
  }

  /**
   * A jar named {@code file}.jar holding {@code pkg.Provider}, a provider of a system called
   * {@code name} (compiled here against the test's class path), listed in META-INF/services.
   */
  private Path providerJar(String file, String pkg, String name) throws IOException {
    Path src = Files.createDirectories(dir.resolve("src-" + file).resolve(pkg.replace('.', '/')));
    Path classes = Files.createDirectories(dir.resolve("classes-" + file));
    Files.writeString(src.resolve("Provider.java"), "package " + pkg + ";\n"
        + "public final class Provider implements io.partkit.harness.system.SystemProvider {\n"
        + "  public String name() { return \"" + name + "\"; }\n"
        + "  public String description() { return \"a test system\"; }\n"
        + "  public io.partkit.harness.system.SystemUnderTest create() {\n"
        + "    throw new UnsupportedOperationException(); }\n"
        + "  public java.util.List<String> capabilities() { return java.util.List.of(); }\n"
        + "}\n");
    int code = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d",
        classes.toString(), "-cp", JavaCommand.classPath(),
        src.resolve("Provider.java").toString());
    assertThat(code).as("javac").isZero();
    Path jar = dir.resolve(file + ".jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
        Files.copy(f, out);
      }
      out.putNextEntry(new JarEntry("META-INF/services/"
          + "io.partkit.harness.system.SystemProvider"));
      write(out, pkg + ".Provider\n");
    }
    return jar;
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
  }
}
