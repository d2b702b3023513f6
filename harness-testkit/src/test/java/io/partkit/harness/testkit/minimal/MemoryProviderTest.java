package io.partkit.harness.testkit.minimal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.testkit.SystemProviderContract;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/harness.md's minimal provider is this package's {@link MemoryProvider}, exactly: the page
 * shows the file, and the kit holds it to the contract (kill and pause are skipped: it has
 * neither; its short verify run must be valid).
 */
class MemoryProviderTest extends SystemProviderContract {

  @Override
  protected SystemProvider provider() {
    return new MemoryProvider();
  }

  @Test
  void docsHarnessMdShowsThisFileExactly() throws IOException {
    String root = System.getenv("PARTKIT_ROOT");
    Path repo = Path.of(root == null ? ".." : root);
    String page = Files.readString(repo.resolve("docs/harness.md"), StandardCharsets.UTF_8);
    Matcher block = Pattern.compile("```java\n(package io\\.partkit\\.harness\\.testkit\\.minimal;"
        + "\n.*?)```", Pattern.DOTALL).matcher(page);
    assertTrue(block.find(), "docs/harness.md has a ```java block of MemoryProvider");
    String file = Files.readString(repo.resolve("harness-testkit/src/test/java/io/partkit/"
        + "harness/testkit/minimal/MemoryProvider.java"), StandardCharsets.UTF_8);
    assertEquals(file, block.group(1), "docs/harness.md's minimal provider must be exactly "
        + "harness-testkit/src/test/java/io/partkit/harness/testkit/minimal/MemoryProvider.java");
  }
}
