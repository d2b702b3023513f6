package io.partkit.harness.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.system.Operation;
import io.partkit.harness.system.Outcome;
import io.partkit.verification.history.OpType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client protocol against small shell scripts playing the user's client: what each answer
 * becomes, and what happens to a client that says something else, exits or keeps silent.
 */
class ExecClientTest {

  @TempDir
  Path dir;

  private final List<String> notes = new ArrayList<>();

  private static final Operation READ = new Operation(Operation.READ, 3, null);
  private static final Operation WRITE = new Operation(Operation.WRITE, 3, 5L);
  private static final Operation CAS = new Operation(Operation.CAS, 3, Arrays.asList(null, 6L));

  /** A client that echoes what it read to a file and answers with the given lines in turn. */
  private ExecClient client(String... answers) {
    StringBuilder script = new StringBuilder();
    for (String a : answers) {
      script.append("read line; echo \"$line\" >> ").append(dir.resolve("seen"))
          .append("; echo '").append(a).append("'; ");
    }
    script.append("exec sleep 60");
    return new ExecClient(List.of("sh", "-c", script.toString()), List.of("h1:1", "h2:2"),
        Duration.ofSeconds(5), dir.resolve("clients.log"), notes::add);
  }

  @Test
  void eachOperationIsOneJsonLineAndEachAnswerItsOutcome() throws Exception {
    try (ExecClient c = client("{\"id\": 1, \"type\": \"ok\", \"value\": 4}",
        "{\"type\": \"ok\", \"value\": 99}", "{\"id\": 3, \"type\": \"fail\", \"mismatch\": true}",
        "{\"type\": \"fail\", \"error\": \"no leader\"}", "{\"type\": \"info\", \"error\": \"x\"}",
        "{\"type\": \"ok\", \"value\": null}")) {
      assertThat(c.invoke(READ)).isEqualTo(Outcome.ok(4L));
      assertThat(c.invoke(WRITE)).isEqualTo(Outcome.ok(5L)); // the operation's value, not 99
      Outcome mismatch = c.invoke(CAS);
      assertThat(mismatch.type()).isEqualTo(OpType.FAIL);
      assertThat(mismatch.mismatch()).isTrue();
      assertThat(c.invoke(WRITE)).isEqualTo(Outcome.fail(5L, "no leader"));
      assertThat(c.invoke(WRITE)).isEqualTo(Outcome.info(5L, "x"));
      assertThat(c.invoke(READ)).isEqualTo(Outcome.ok(null));
    }
    assertThat(Files.readAllLines(dir.resolve("seen"))).startsWith(
        "{\"id\":1,\"f\":\"read\",\"key\":3,\"value\":null,\"nodes\":[\"h1:1\",\"h2:2\"]}",
        "{\"id\":2,\"f\":\"write\",\"key\":3,\"value\":5,\"nodes\":[\"h1:1\",\"h2:2\"]}",
        "{\"id\":3,\"f\":\"cas\",\"key\":3,\"value\":[null,6],\"nodes\":[\"h1:1\",\"h2:2\"]}");
  }

  @Test
  void garbageIsInfoNamingTheCommandAndTheLineAndTheNextOperationGetsAFreshProcess() {
    try (ExecClient c = client("hello", "{\"type\": \"ok\"}")) {
      Outcome o = c.invoke(WRITE);
      assertThat(o.type()).isEqualTo(OpType.INFO);
      assertThat(o.error()).contains("client `sh -c read line;", "with the line 'hello': not JSON");
      // a fresh process answers "hello" again: the first line of its script
      assertThat(c.invoke(WRITE).error()).contains("'hello'");
    }
    assertThat(notes).hasSize(2).allMatch(n -> n.contains("with the line 'hello': not JSON"));
  }

  @Test
  void answersOutsideTheProtocolAreNamed() {
    assertGarbage("[1, 2]", "not a JSON object");
    assertGarbage("{\"type\": \"done\"}", "\"type\" must be \"ok\", \"fail\" or \"info\"");
    assertGarbage("{\"type\": \"ok\"}", "an ok read needs \"value\"");
    assertGarbage("{\"type\": \"ok\", \"value\": \"4\"}", "an ok read's \"value\" is an integer");
    assertGarbage("{\"id\": 9, \"type\": \"ok\", \"value\": 1}",
        "its \"id\" is not the operation's, 1");
    assertGarbage("{\"type\": \"ok\", \"value\": 1} {}", "not JSON");
  }

  private void assertGarbage(String answer, String why) {
    try (ExecClient c = client(answer)) {
      assertThatThrownBy(() -> c.exchange(READ, Duration.ofSeconds(5), true))
          .isInstanceOf(ExecClient.ProtocolException.class)
          .hasMessageContaining("the line '" + answer + "': " + why);
    }
  }

  @Test
  void noAnswerInTimeIsInfoAndAnExitIsInfoWithItsStatus() {
    try (ExecClient c = new ExecClient(List.of("sleep", "60"), List.of("h1:1"),
        Duration.ofMillis(300), dir.resolve("clients.log"), notes::add)) {
      Outcome o = c.invoke(READ);
      assertThat(o.type()).isEqualTo(OpType.INFO);
      assertThat(o.error()).contains("client `sleep 60` gave no answer to", "within 300 ms");
    }
    try (ExecClient c = new ExecClient(List.of("sh", "-c", "read line; exit 3"),
        List.of("h1:1"), Duration.ofSeconds(5), dir.resolve("clients.log"), notes::add)) {
      Outcome o = c.invoke(WRITE);
      assertThat(o.type()).isEqualTo(OpType.INFO);
      assertThat(o.error()).contains("exited with status 3 before answering");
    }
  }

  @Test
  void aCommandThatCannotRunFailsTheOperationItNeverSent() {
    try (ExecClient c = new ExecClient(List.of(dir.resolve("missing").toString()),
        List.of("h1:1"), Duration.ofSeconds(5), dir.resolve("clients.log"), notes::add)) {
      Outcome o = c.invoke(WRITE);
      assertThat(o.type()).isEqualTo(OpType.FAIL);
      assertThat(o.error()).contains("cannot start", "missing");
    }
  }
}
