package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** {@code partkit systems}: the five systems on the cli's class path, found by ServiceLoader. */
class SystemsCommandTest {

  @Test
  void listsTheFiveSystemsWithTheirNodesCapabilitiesAndOptions() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.commandLine(new PartkitCommand()).setOut(new PrintWriter(out))
        .setErr(new PrintWriter(err)).execute("systems");
    assertThat(code).as(err.toString()).isZero();
    String listing = out.toString();
    assertThat(listing.lines().filter(l -> !l.startsWith(" ")).map(l -> l.split("\\s+")[0]))
        .containsExactly("etcd", "exec", "hazelcast", "ignite", "kv");
    assertThat(listing)
        .contains("nodes 3 by default (at least 1); capabilities: kill, pause\n")
        .contains("capabilities: kill, pause, membership, migrations, lose-nodes, "
            + "placement-check, rebalancing, splits\n")
        .contains("capabilities: kill, pause, membership, placement-check, rebalancing\n")
        .contains("--option replicas=3  an integer >= 1")
        .contains("--option split-brain-protection=  an integer >= 1 (default: off)")
        .contains("--option node-command=  required: a command with {port} or {address}");
  }
}
