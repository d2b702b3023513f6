package io.partkit.harness.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.Systems;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The options are checked before anything starts; the provider is found by its name. */
class ExecProviderTest {

  private final SystemProvider exec = Systems.load().provider("exec");

  @Test
  void foundThroughTheServiceLoaderWithKillAndPause() {
    assertThat(exec).isInstanceOf(ExecProvider.class);
    assertThat(exec.capabilities()).containsExactly("kill", "pause");
    assertThat(exec.defaultNodes()).isEqualTo(3);
  }

  @Test
  void defaultsApplyToWhatIsNotGiven() {
    OptionValues o = exec.options().check(Map.of("node-command", "srv {port}",
        "client-command", "cli {nodes}"), 3);
    assertThat(o.text("ready-line")).isEqualTo("READY");
    assertThat(o.integer("op-timeout-ms")).isEqualTo(2000);
    assertThat(o.integer("start-timeout-ms")).isEqualTo(30_000);
    assertThat(o.optional("files")).isEmpty();
  }

  @Test
  void aNodeCommandWithoutItsPortOrWithAnUnknownPlaceholderIsRefusedNamingIt() {
    assertThatThrownBy(() -> exec.options().check(Map.of("node-command", "srv --data {data}"), 3))
        .hasMessageContaining("exec option node-command=srv --data {data}: names neither {port}"
            + " nor {address}");
    assertThatThrownBy(() -> exec.options().check(Map.of("node-command", "srv {prot}"), 3))
        .hasMessageContaining("unknown placeholder {prot}");
    assertThatThrownBy(() -> exec.options().check(Map.of("client-command", "cli {port}"), 3))
        .hasMessageContaining("exec option client-command=cli {port}: unknown placeholder {port}"
            + " (known: ");
    assertThatThrownBy(() -> exec.options().check(Map.of("node-comand", "srv {port}"), 3))
        .hasMessageContaining("unknown exec option 'node-comand'")
        .hasMessageContaining("exec options: node-command (");
    assertThatThrownBy(() -> exec.options().check(Map.of("op-timeout-ms", "soon"), 3))
        .hasMessageContaining("op-timeout-ms=soon: not an integer");
  }
}
