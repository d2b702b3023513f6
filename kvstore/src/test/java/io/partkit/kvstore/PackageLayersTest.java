package io.partkit.kvstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The kvstore's packages stay in the layers {@code package-info.java} of this package describes:
 * a package imports only packages of lower layers, so no two import each other, and the wire
 * protocol imports nothing but the shared vocabulary. Read from the sources' import lines, so a
 * new import that breaks a layer fails here rather than in a review.
 */
class PackageLayersTest {

  /** Layer of each package, by its name under {@code io.partkit.kvstore} ("" for the root). */
  private static final Map<String, Integer> LAYERS = Map.of(
      "", 0,
      "wire", 1,
      "load", 2,
      "client", 3,
      "node", 3,
      "migration", 4);

  private static final Path SOURCES = Path.of("src/main/java/io/partkit/kvstore");
  private static final Pattern IMPORT =
      Pattern.compile("^import (?:static )?io\\.partkit\\.kvstore\\.(?:([a-z]+)\\.)?[A-Z][\\w.]*;",
          Pattern.MULTILINE);

  @Test
  void everyPackageImportsOnlyLowerLayers() throws IOException {
    List<String> wrong = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(SOURCES)) {
      files = walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
    assertThat(files).as("the kvstore's sources, from the module's directory").isNotEmpty();
    for (Path file : files) {
      String pkg = SOURCES.relativize(file.getParent()).toString().replace('/', '.');
      Integer layer = LAYERS.get(pkg);
      if (layer == null) {
        wrong.add(file + ": package '" + pkg + "' has no layer (add it here and to the docs)");
        continue;
      }
      Matcher m = IMPORT.matcher(Files.readString(file));
      while (m.find()) {
        String imported = m.group(1) == null ? "" : m.group(1);
        Integer below = LAYERS.get(imported);
        if (!imported.equals(pkg) && (below == null || below >= layer)) {
          wrong.add(file + ": " + m.group() + " (layer " + below + " from layer " + layer + ")");
        }
      }
    }
    assertThat(wrong).as("imports against the layers").isEmpty();
  }
}
