package io.partkit.harness.runtime;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Hosts for the SSH runtime's tests, made on this machine as separate hosts would be: each is a
 * network namespace of its own on {@code 10.79.K.0/24} (made by the netns runtime on a range no
 * other runtime uses) running its own {@code sshd} with a host key of its own, reached with a key
 * made for the test. The runtime under test reaches them only over SSH.
 */
public final class SshHosts implements AutoCloseable {

  /** Where the tests' runs keep their files on the hosts; the jar cache below it stays. */
  private static final String RUNS_DIR = "/tmp/partkit-ssh-test-runs";

  private final Path dir;
  private final NetnsRuntime net;
  private final List<String> addresses = new ArrayList<>();
  private final Path clientKey;
  private final Path knownHosts;

  private SshHosts(Path dir, int count, String lastHostPath) throws IOException {
    this.dir = dir;
    this.net = new NetnsRuntime(dir.resolve("netns"), "10.79");
    this.clientKey = dir.resolve("id_ed25519");
    this.knownHosts = dir.resolve("known_hosts");
    List<String> names = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      names.add("h" + i);
    }
    boolean ok = false;
    try {
      net.open(names);
      Files.createDirectories(Path.of("/run/sshd")); // sshd's privilege separation directory
      keygen(clientKey);
      Files.copy(dir.resolve("id_ed25519.pub"), dir.resolve("authorized_keys"));
      StringBuilder known = new StringBuilder();
      List<NodeProcess> daemons = new ArrayList<>();
      for (String h : names) {
        Path hostKey = dir.resolve(h + "_host_ed25519");
        keygen(hostKey);
        Path config = dir.resolve(h + "_sshd_config");
        Files.writeString(config, String.join("\n",
            "ListenAddress " + net.host(h),
            "HostKey " + hostKey,
            "PidFile none",
            "StrictModes no", // the keys live under /tmp
            "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "PermitRootLogin prohibit-password",
            "UsePAM no",
            "MaxStartups 200",
            "MaxSessions 200",
            h.equals(names.get(count - 1)) && lastHostPath != null
                ? "SetEnv PATH=" + lastHostPath : "",
            ""));
        daemons.add(net.start(h, List.of("/usr/sbin/sshd", "-D", "-e", "-f", config.toString()),
            dir.resolve(h + "_sshd.log")));
        String pub = Files.readString(dir.resolve(h + "_host_ed25519.pub")).strip();
        String[] parts = pub.split(" ");
        known.append(net.host(h)).append(' ').append(parts[0]).append(' ').append(parts[1])
            .append('\n');
        addresses.add(net.host(h));
      }
      for (NodeProcess d : daemons) {
        d.awaitLine("Server listening", Duration.ofSeconds(60));
      }
      Files.writeString(knownHosts, known);
      ok = true;
    } finally {
      if (!ok) {
        net.close();
      }
    }
  }

  /** {@code count} hosts, their files under {@code dir}. Fails or skips without the tools. */
  public static SshHosts start(Path dir, int count) throws IOException {
    return start(dir, count, null);
  }

  /**
   * The same, with the last host's sessions getting {@code PATH=lastHostPath} (a host where
   * {@code java} is not found), or as the others when null.
   */
  public static SshHosts start(Path dir, int count, String lastHostPath) throws IOException {
    require();
    Files.createDirectories(dir);
    return new SshHosts(dir, count, lastHostPath);
  }

  /** The hosts' addresses, h1 first. */
  public List<String> addresses() {
    return List.copyOf(addresses);
  }

  /** Logging in as root with the test's key, host keys checked against the test's file. */
  SshTarget target() {
    return SshTarget.of(addresses).withUser("root").withKey(clientKey).withKnownHosts(knownHosts)
        .withDir(RUNS_DIR);
  }

  /** Where runs keep their files on the hosts (they share this machine's disk). */
  public Path runsDir() {
    return Path.of(RUNS_DIR);
  }

  /** The ssh runtime on these hosts, as {@link #target()} logs in, for a run's spec. */
  public RuntimeSpec runtime() {
    return RuntimeSpec.named("ssh").with(SshProvider.HOSTS, addresses())
        .with(SshProvider.USER, "root").with(SshProvider.KEY, clientKey)
        .with(SshProvider.KNOWN_HOSTS, knownHosts).with(SshProvider.DIR, RUNS_DIR);
  }

  /** The test's files: keys, known_hosts, sshd configs and logs. */
  public Path dir() {
    return dir;
  }

  /**
   * Stops the daemons, removes the namespaces and the test's files (its keys among them). The
   * runs' jar cache under {@link SshTarget#dir()} stays, so the next test class uploads nothing.
   */
  @Override
  public void close() {
    net.close();
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.err.println("SshHosts: cannot remove " + dir + ": " + e);
    }
  }

  private static void keygen(Path file) throws IOException {
    run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "partkit-test", "-f",
        file.toString());
  }

  static String run(String... command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (p.waitFor() != 0) {
        throw new IOException(String.join(" ", command) + " failed: " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    return out;
  }

  /** Root, iproute2, nftables, openssh-server and openssh-client: fail under CI, else skip. */
  public static void require() {
    NetnsPrerequisite.require();
    List<String> missing = new ArrayList<>();
    for (String tool : List.of("sshd", "ssh", "ssh-keygen")) {
      if (Stream.of("/usr/sbin", "/usr/bin").noneMatch(d -> Files.isExecutable(Path.of(d, tool)))) {
        missing.add(tool);
      }
    }
    if (!missing.isEmpty()) {
      String why = "the SSH runtime tests need " + String.join(", ", missing)
          + " (apt-get install openssh-server openssh-client)";
      if ("true".equals(System.getenv("CI"))) {
        fail(why);
      }
      Assumptions.assumeTrue(false, why);
    }
  }
}
