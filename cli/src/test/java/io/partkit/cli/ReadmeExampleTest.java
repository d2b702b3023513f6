package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.cli.readme.FirstExample;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The README's first example is {@code readme/FirstExample.java}, word for word: this test fails
 * when README.md's first {@code java} block differs from the text between that file's markers,
 * and runs the example to check what its comments and output claim.
 */
class ReadmeExampleTest {

  private static final String EXAMPLE = "cli/src/test/java/io/partkit/cli/readme/FirstExample.java";
  private static final String BEGIN = "// readme-example:begin";
  private static final String END = "// readme-example:end";

  @Test
  void theReadmesFirstJavaBlockIsTheCompiledExample() throws IOException {
    Path root = RepositoryRoot.find();
    String readmeBlock = firstJavaBlock(lines(root.resolve("README.md")));
    String source = betweenMarkers(lines(root.resolve(EXAMPLE)));
    assertThat(readmeBlock)
        .as("README.md's first ```java block must be exactly the text between the markers of %s",
            EXAMPLE)
        .isEqualTo(source);
  }

  @Test
  void theExampleRunsAndDoesWhatItsCommentsSay() {
    String printed = run();
    List<String> out = printed.lines().toList();
    assertThat(out).hasSize(2);

    // "primary first, one per zone": three nodes in three zones, so the replicas are all three,
    // the primary first.
    String first = out.get(0);
    assertThat(first).startsWith("user-42: primary node-");
    String owner = first.substring("user-42: primary ".length(), first.indexOf(','));
    String list = first.substring(first.indexOf('[') + 1, first.indexOf(']'));
    List<String> replicas = List.of(list.split(", "));
    assertThat(replicas).hasSize(3).doesNotHaveDuplicates()
        .containsExactlyInAnyOrder("node-a", "node-b", "node-c");
    assertThat(replicas.get(0)).isEqualTo(owner);

    // "only what it must take moves, and only to it": 1/4 of the keys, the least possible, and
    // nothing between the nodes that stayed.
    assertThat(out.get(1)).isEqualTo(
        "moved 0.250 of the keys (least possible 0.250), 0.000 between staying nodes");
  }

  /** Runs the example's {@code main} with standard output captured (numbers in Locale.ROOT). */
  private static String run() {
    PrintStream saved = System.out;
    Locale savedLocale = Locale.getDefault();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      Locale.setDefault(Locale.ROOT);
      System.setOut(capture);
      FirstExample.main(new String[0]);
    } finally {
      System.setOut(saved);
      Locale.setDefault(savedLocale);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static List<String> lines(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8).lines().toList();
  }

  private static String firstJavaBlock(List<String> lines) {
    int start = lines.indexOf("```java");
    assertThat(start).as("README.md has a ```java block").isNotNegative();
    int end = start + 1;
    while (end < lines.size() && !lines.get(end).equals("```")) {
      end++;
    }
    assertThat(end).as("the README's first ```java block is closed").isLessThan(lines.size());
    return String.join("\n", lines.subList(start + 1, end));
  }

  private static String betweenMarkers(List<String> lines) {
    int begin = lines.indexOf(BEGIN);
    int end = lines.indexOf(END);
    assertThat(begin).as("%s in %s", BEGIN, EXAMPLE).isNotNegative();
    assertThat(end).as("%s after %s in %s", END, BEGIN, EXAMPLE).isGreaterThan(begin);
    return String.join("\n", lines.subList(begin + 1, end));
  }
}
