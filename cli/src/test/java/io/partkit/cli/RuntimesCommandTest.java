package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * {@code partkit runtimes}: the harness's four runtimes and this module's test runtime ({@code
 * recording}, from its test {@code META-INF/services}), found by ServiceLoader.
 */
class RuntimesCommandTest {

  @Test
  void listsTheRuntimesWithTheirCapabilitiesAndOptions() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.commandLine(new PartkitCommand()).setOut(new PrintWriter(out))
        .setErr(new PrintWriter(err)).execute("runtimes");
    assertThat(code).as(err.toString()).isZero();
    String listing = out.toString();
    assertThat(listing.lines().filter(l -> !l.startsWith(" ")).map(l -> l.split("\\s+")[0]))
        .containsExactly("processes", "netns", "containers", "ssh", "recording");
    assertThat(listing)
        .contains("processes  processes on 127.0.0.1 (the default)")
        .contains("capabilities: none\n")
        .contains("capabilities: partitions\n")
        .contains("--runtime-option image=partkit/node:bookworm-2  an image in the engine")
        .contains("--runtime-option hosts=  host names or addresses, comma-separated; partitions "
            + "need a host per node; required (--hosts)")
        .contains("--runtime-option port=22  an integer from 1 to 65535 (--ssh-port)")
        .contains("--runtime-option key=  a private key file (default: OpenSSH's ~/.ssh/id_*); "
            + "not set by default (--ssh-key)")
        .contains("--runtime-option starts=  a file that gets a line per node start; required");
  }
}
