package io.partkit.harness.runtime;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * What the netns runtime needs: root, {@code ip} and {@code nft}. Missing, a test fails under
 * {@code CI=true} (CI must run it) and is skipped elsewhere, saying what to install.
 */
public final class NetnsPrerequisite {

  private NetnsPrerequisite() {}

  /** Fails or skips the calling test when something is missing. */
  public static void require() {
    List<String> missing = new ArrayList<>();
    if (!isRoot()) {
      missing.add("root (run the tests as root)");
    }
    for (String tool : List.of("ip", "nft")) {
      if (Stream.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")
          .noneMatch(d -> Files.isExecutable(Path.of(d, tool)))) {
        missing.add(tool + " (apt-get install iproute2 nftables)");
      }
    }
    if (!missing.isEmpty()) {
      String why = "the netns runtime tests need " + String.join(", ", missing);
      if ("true".equals(System.getenv("CI"))) {
        fail(why);
      }
      Assumptions.assumeTrue(false, why);
    }
  }

  private static boolean isRoot() {
    try {
      Process p = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      return p.waitFor() == 0 && out.equals("0");
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
