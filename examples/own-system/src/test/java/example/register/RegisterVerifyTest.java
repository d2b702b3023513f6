package example.register;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.partkit.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example system through {@code partkit verify}: found on the class path, its options
 * checked, a nemesis it lacks the capability for refused, and the planted bug caught by a real
 * run with faults (seeded: the seed is in the command line). The correct mode's run is the
 * build's own: partkit-maven-plugin's verify goal, in this project's pom.
 */
class RegisterVerifyTest {

  @TempDir Path store;

  private record Run(int code, String out, String err) {}

  private static Run partkit(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      int code = Main.run(args);
      return new Run(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  @Test
  void partkitListsTheSystemWithItsCapabilitiesAndOptions() {
    Run r = partkit("systems");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("register"), r.out());
    assertTrue(r.out().contains("capabilities: kill, pause"), r.out());
    assertTrue(r.out().contains("--option durable=true"), r.out());
  }

  @Test
  void aMistypedOptionIsRefusedListingTheKnownOnes() {
    Run r = partkit("verify", "--system", "register", "--option", "durabel=true",
        "--store", store.toString());
    assertEquals(64, r.code(), r.err());
    assertTrue(r.err().contains("unknown register option 'durabel'"), r.err());
    assertTrue(r.err().contains("durable=true"), r.err());
  }

  @Test
  void aNemesisNeedingACapabilityItLacksIsRefusedBeforeAnythingStarts() {
    Run r = partkit("verify", "--system", "register", "--nemesis", "membership",
        "--store", store.toString());
    assertEquals(64, r.code(), r.err());
    assertTrue(r.err().contains("register lacks the membership capability"), r.err());
  }

  /**
   * A run catches the bug the option plants: without the log a killed node comes back
   * empty, so acknowledged writes of the keys it held are gone (exit 1, invalid). Every kill in
   * 30 s hits a node that holds keys written before it.
   */
  @Test
  void volatileRegistersLoseAcknowledgedWritesWhenKilled() {
    Run r = partkit("verify", "--system", "register", "--option", "durable=false",
        "--nemesis", "kill", "--time", "30s", "--seed", "7", "--store", store.toString());
    assertEquals(1, r.code(), "seed 7: " + r.out() + r.err());
  }
}
