package io.partkit.maven;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.test.support.PrivateRepository;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A {@link PrivateRepository} holding this build's partkit-maven-plugin and every partkit jar it
 * runs with (its {@code target/classpath.txt}, which in a reactor build names each module's
 * packaged jar), with their poms, the parent pom and the BOM: what a user's build resolves the
 * plugin from, without installing anything where other builds look.
 */
final class PluginRepository {

  private PluginRepository() {}

  /** The repository at {@code dir}, filled. */
  static PrivateRepository create(Path dir) throws IOException {
    Path root = root();
    String version = property("partkit.version");
    PrivateRepository repo = new PrivateRepository(dir, version);
    repo.install("partkit-parent", root.resolve("pom.xml"), null);
    repo.install("partkit-bom", root.resolve("bom/pom.xml"), null);
    List<Path> jars = new ArrayList<>();
    jars.add(Path.of(property("partkit.pluginJar")));
    for (String entry : Files.readString(Path.of(property("partkit.pluginClasspath"))).trim()
        .split(File.pathSeparator)) {
      if (Path.of(entry).getFileName().toString().startsWith("partkit-")) {
        jars.add(Path.of(entry));
      }
    }
    String suffix = "-" + version + ".jar";
    for (Path jar : jars) {
      // In a reactor build a module's jar is <module>/target/<artifact>-<version>.jar.
      Path module = jar.getParent().getParent();
      String name = jar.getFileName().toString();
      assertThat(jar).as("a packaged jar of this build (run with -am)").isRegularFile();
      assertThat(module.getParent()).as(jar + " is in a module of the reactor at " + root
          + " (run with -am, so that the reactor resolves its modules)").isEqualTo(root);
      assertThat(name).endsWith(suffix);
      repo.install(name.substring(0, name.length() - suffix.length()),
          module.resolve("pom.xml"), jar);
    }
    return repo;
  }

  /** A copy of {@code project} under {@code into}, without its build output. */
  static Path copy(Path project, Path into) throws IOException {
    Path copy = into.resolve(project.getFileName());
    try (Stream<Path> files = Files.walk(project)) {
      for (Path from : (Iterable<Path>) files::iterator) {
        Path relative = project.relativize(from);
        if (relative.startsWith("target")) {
          continue;
        }
        Path to = copy.resolve(relative.toString());
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else {
          Files.copy(from, to);
        }
      }
    }
    return copy;
  }

  /** The repository's root: {@code $PARTKIT_ROOT}, which failsafe sets, else the parent. */
  static Path root() {
    String root = System.getenv("PARTKIT_ROOT");
    Path dir = Path.of(root == null ? ".." : root).toAbsolutePath().normalize();
    assertThat(dir.resolve("README.md")).as("the repository root (PARTKIT_ROOT=" + root + ")")
        .isRegularFile();
    return dir;
  }

  static String property(String name) {
    String value = System.getProperty(name);
    assertThat(value).as("system property " + name + " (the module's failsafe configuration "
        + "sets it)").isNotBlank();
    return value;
  }
}
