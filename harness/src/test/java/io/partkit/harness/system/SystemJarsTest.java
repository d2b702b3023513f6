package io.partkit.harness.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The user's class loader: a library class the user's jars hold too comes from them, partkit's
 * own classes always from partkit, and a node started from a user's class gets the user's
 * entries first on its class path.
 */
class SystemJarsTest {

  @TempDir Path dir;

  /** A copy of {@code type}'s class file in {@code dir}, where a user's jar would have it. */
  private void copyClassFile(Class<?> type) throws IOException {
    String file = type.getName().replace('.', '/') + ".class";
    Path to = dir.resolve(file);
    Files.createDirectories(to.getParent());
    try (InputStream in = type.getClassLoader().getResourceAsStream(file)) {
      Files.copy(in, to);
    }
  }

  @Test
  void aLibraryTheUserShipsTooComesFromTheUsersJarsButPartkitsClassesFromPartkit()
      throws Exception {
    Class<?> library = org.opentest4j.AssertionFailedError.class; // not partkit's, not the JDK's
    copyClassFile(library);
    copyClassFile(SystemProvider.class);
    try (SystemJars jars = SystemJars.open(List.of(), List.of(dir))) {
      Class<?> users = jars.loadClass(library.getName());
      assertThat(users).isNotSameAs(library);
      assertThat(users.getClassLoader()).isSameAs(jars);
      assertThat(jars.loadClass(SystemProvider.class.getName()))
          .as("the SPI is one type").isSameAs(SystemProvider.class);
      assertThat(jars.loadClass(String.class.getName())).isSameAs(String.class);

      String resource = library.getName().replace('.', '/') + ".class";
      List<URL> found = Collections.list(jars.getResources(resource));
      assertThat(found).hasSizeGreaterThanOrEqualTo(2);
      assertThat(Path.of(found.get(0).toURI())).as("the user's copy first").startsWith(dir);
      assertThat(Path.of(jars.getResource(resource).toURI())).startsWith(dir);

      assertThat(JavaCommand.classPath(users)).as("a node's class path: the user's first")
          .startsWith(dir.toAbsolutePath() + File.pathSeparator)
          .endsWith(JavaCommand.classPath());
      assertThat(JavaCommand.classPath(library)).isEqualTo(JavaCommand.classPath());
    }
  }

  @Test
  void aMissingClassPathEntryIsRefusedNamingIt() {
    Path missing = dir.resolve("nowhere.jar");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> SystemJars.open(List.of(), List.of(missing)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("class-path entry " + missing.toAbsolutePath() + " does not exist");
  }
}
