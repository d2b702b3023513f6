package io.partkit.cli;

import io.partkit.harness.runtime.ContainersProvider;
import io.partkit.harness.runtime.RuntimeSpec;
import io.partkit.harness.runtime.SshProvider;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Where the nodes run, as {@code partkit verify} and {@code partkit bench --live} take it:
 * {@code --runtime} with its options, the ssh runtime's typed flags among them.
 */
final class RuntimeFlags {

  @Option(names = "--runtime", defaultValue = "processes",
      description = "Where the nodes run: processes (loopback, the default), netns (network "
          + "namespaces, root), containers (a Docker engine; image partkit/node:bookworm-2 from "
          + "tools/build-node-image), containers:IMAGE, ssh (real hosts over SSH: --hosts, or "
          + "ssh:HOST,HOST...), or "
          + "any runtime on the class path, listed below.")
  String runtime;

  @Option(names = "--runtime-option", paramLabel = "KEY=VALUE",
      description = "A runtime option, checked before anything starts (an unknown key or a bad "
          + "value is refused listing the known ones). Each runtime's options are listed below; "
          + "the --hosts and --ssh-* flags set the ssh runtime's.")
  Map<String, String> runtimeOptions = new LinkedHashMap<>();

  @Option(names = "--hosts", split = ",", paramLabel = "HOST",
      description = "With --runtime ssh: the hosts the nodes run on, comma-separated (node i on "
          + "host i mod count; partitions need a host per node).")
  List<String> hosts;

  @Option(names = "--ssh-user", paramLabel = "USER",
      description = "With --runtime ssh: who logs in (default: the current user; root or "
          + "passwordless sudo for nft).")
  String sshUser;

  @Option(names = "--ssh-key", paramLabel = "FILE",
      description = "With --runtime ssh: the private key (default: OpenSSH's ~/.ssh/id_*).")
  Path sshKey;

  @Option(names = "--ssh-port", paramLabel = "N", description = "With --runtime ssh: sshd's port "
      + "(default 22).")
  Integer sshPort;

  @Option(names = "--ssh-known-hosts", paramLabel = "FILE",
      description = "With --runtime ssh: the host keys hosts are checked against (default "
          + "~/.ssh/known_hosts).")
  Path sshKnownHosts;

  @Option(names = "--ssh-accept-new-host-keys",
      description = "With --runtime ssh: trust a host never seen before and add its key to the "
          + "known-hosts file (first contact); a changed key is still refused.")
  boolean sshAcceptNew;

  @Option(names = "--ssh-dir", paramLabel = "DIR",
      description = "With --runtime ssh: where runs keep their files on the hosts (default "
          + SshProvider.DEFAULT_DIR + ").")
  String sshDir;

  /** The command line's flags for runtime options: {@code --hosts} is the ssh runtime's hosts. */
  private static final Map<String, String> FLAGS = Map.of(
      "ssh/" + SshProvider.HOSTS.name(), "--hosts",
      "ssh/" + SshProvider.USER.name(), "--ssh-user",
      "ssh/" + SshProvider.KEY.name(), "--ssh-key",
      "ssh/" + SshProvider.PORT.name(), "--ssh-port",
      "ssh/" + SshProvider.KNOWN_HOSTS.name(), "--ssh-known-hosts",
      "ssh/" + SshProvider.ACCEPT_NEW_HOST_KEYS.name(), "--ssh-accept-new-host-keys",
      "ssh/" + SshProvider.DIR.name(), "--ssh-dir",
      "containers/" + ContainersProvider.IMAGE.name(), "--runtime containers:IMAGE");

  /** The flag that sets {@code runtime}'s option {@code option}, if there is one. */
  static Optional<String> flagFor(String runtime, String option) {
    return Optional.ofNullable(FLAGS.get(runtime + "/" + option));
  }

  /**
   * {@code --runtime} with its options: the typed {@code --hosts} and {@code --ssh-*} flags handed
   * to the ssh runtime as they are, {@code containers:IMAGE} as the containers runtime's image,
   * {@code ssh:HOSTS} as the ssh runtime's hosts, and
   * every {@code --runtime-option} as text for the runtime to parse once.
   */
  /** Whether any of these flags was given (the runtime other than the default, or an option). */
  boolean given() {
    return !runtime.equals("processes") || !runtimeOptions.isEmpty() || hosts != null
        || sshUser != null || sshKey != null || sshPort != null || sshKnownHosts != null
        || sshAcceptNew || sshDir != null;
  }

  RuntimeSpec spec() {
    boolean sshFlags = hosts != null || sshUser != null || sshKey != null || sshPort != null
        || sshKnownHosts != null || sshAcceptNew || sshDir != null;
    RuntimeSpec r;
    if (runtime.startsWith("containers:")) {
      r = RuntimeSpec.named("containers").with(ContainersProvider.IMAGE,
          runtime.substring("containers:".length()));
    } else if (runtime.startsWith("ssh:")) { // the hosts' short form, as the runtime's own text
      r = RuntimeSpec.named("ssh").withText(SshProvider.HOSTS.name(),
          runtime.substring("ssh:".length()));
    } else {
      r = RuntimeSpec.named(runtime);
    }
    if (r.name().equals("ssh")) {
      if ((hosts == null || hosts.isEmpty()) && !runtimeOptions.containsKey("hosts")
          && !runtime.startsWith("ssh:")) {
        throw new IllegalArgumentException("--runtime ssh needs --hosts h1,h2,h3");
      }
      if (hosts != null) {
        r = r.with(SshProvider.HOSTS, hosts.stream().map(String::trim).toList());
      }
      if (sshUser != null) {
        r = r.with(SshProvider.USER, sshUser);
      }
      if (sshKey != null) {
        r = r.with(SshProvider.KEY, sshKey.toAbsolutePath());
      }
      if (sshPort != null) {
        r = r.with(SshProvider.PORT, sshPort);
      }
      if (sshKnownHosts != null) {
        r = r.with(SshProvider.KNOWN_HOSTS, sshKnownHosts.toAbsolutePath());
      }
      if (sshAcceptNew) {
        r = r.with(SshProvider.ACCEPT_NEW_HOST_KEYS, true);
      }
      if (sshDir != null) {
        r = r.with(SshProvider.DIR, sshDir);
      }
    } else if (sshFlags) {
      throw new IllegalArgumentException("--hosts and --ssh-* options need --runtime ssh");
    }
    for (Map.Entry<String, String> e : runtimeOptions.entrySet()) {
      r = r.withText(e.getKey(), e.getValue());
    }
    return r;
  }
}
