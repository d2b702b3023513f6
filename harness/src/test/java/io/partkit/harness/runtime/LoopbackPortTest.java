package io.partkit.harness.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Ports for nodes come from outside the ephemeral range, each once, and are free to bind. */
class LoopbackPortTest {

  @Test
  void portsAreBelowTheEphemeralRangeDistinctAndBindable() throws Exception {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    int ephemeralLow = Files.isReadable(range)
        ? Integer.parseInt(Files.readAllLines(range).get(0).trim().split("\\s+")[0]) : 32768;
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = Runtimes.freeLoopbackPort();
      assertThat(port).isBetween(1024, ephemeralLow - 1);
      assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        assertThat(s.getLocalPort()).isEqualTo(port);
      }
    }
  }
}
