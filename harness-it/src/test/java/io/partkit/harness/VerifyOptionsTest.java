package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.system.Systems;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Options and nemeses a run cannot honour are refused before anything starts, naming what is
 * wrong and listing what is known: {@code replica=3} (a typo) ran with one copy, {@code
 * replicas=9} on 5 nodes failed after the cluster started with a stack trace, {@code
 * replicas=abc} said only {@code For input string: "abc"}, and the migration nemesis with copies
 * waited 30 s per attempt, injected nothing and counted it as a fault.
 */
class VerifyOptionsTest {

  @TempDir Path store;

  private RunResult run(Map<String, String> options, String... nemeses) {
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    return VerifyRun.run(VerifySpec.builder("kv").nodes(5).nemeses(java.util.List.of(nemeses))
        .store(store).options(options).build(), new PrintStream(progress, true));
  }

  /** Nothing started: no run directory, no node log, no process left behind. */
  private void nothingStarted() throws IOException {
    try (Stream<Path> files = Files.walk(store)) {
      assertThat(files.filter(Files::isRegularFile)).isEmpty();
    }
  }

  @Test
  void anUnknownKeyIsRefusedListingTheKnownOptions() throws IOException {
    assertThatThrownBy(() -> run(Map.of("replica", "3")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown kv option 'replica'")
        .hasMessageContaining("kv options: partitions=16")
        .hasMessageContaining("replicas=3")
        .hasMessageContaining("metadata=log (one of log, etcd, coordinator)");
    nothingStarted();
  }

  @Test
  void aValueThatIsNoNumberSaysWhichOptionAndWhatItTakes() throws IOException {
    assertThatThrownBy(() -> run(Map.of("replicas", "abc")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "kv option replicas=abc: not an integer (expected an integer >= 1)");
    nothingStarted();
  }

  @Test
  void moreCopiesThanNodesIsRefusedBeforeTheClusterStarts() throws IOException {
    assertThatThrownBy(() -> run(Map.of("replicas", "9")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kv option replicas=9: more copies than the 5 nodes");
    nothingStarted();
  }

  @Test
  void everySystemChecksItsOptions() {
    Systems systems = Systems.load();
    for (String name : systems.names()) {
      assertThatThrownBy(() -> systems.provider(name).options().check(Map.of("no-such", "1"), 3))
          .as(name).hasMessageContaining("unknown " + name + " option 'no-such'");
    }
    systems.provider("ignite").options().check(Map.of("backups", "2", "atomicity",
        "transactional", "read-from-backup", "false"), 3);
    assertThatThrownBy(() -> systems.provider("ignite").options().check(Map.of("backups", "3"), 3))
        .hasMessageContaining("ignite option backups=3: out of range (expected an integer from"
            + " 1 to 2)");
  }
}
