package io.partkit.harness.runtime;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where the SSH runtime runs nodes and how it logs in: the hosts (names or addresses), the user,
 * the private key, the port, the known-hosts file that host keys are checked against, whether a
 * host never seen before may be trusted on first contact (its key is then added to that file),
 * and the directory on each host under which runs keep their files.
 *
 * <p>{@link SshProvider} makes it from the runtime's typed options ({@code partkit verify --hosts
 * ... --ssh-user ...} sets them); it checks its values again, as tests make it directly.
 *
 * @param key the private key; null for OpenSSH's defaults ({@code ~/.ssh/id_*})
 */
record SshTarget(List<String> hosts, String user, Path key, int port, Path knownHosts,
    boolean acceptNewHostKeys, String dir) {

  /** Where runs keep their files on each host unless {@code dir=} says otherwise. */
  static final String DEFAULT_DIR = SshProvider.DEFAULT_DIR;

  public SshTarget {
    hosts = List.copyOf(hosts);
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("--runtime ssh needs hosts: --hosts h1,h2,h3");
    }
    Set<String> seen = new LinkedHashSet<>();
    for (String h : hosts) {
      if (h.isBlank() || !h.matches("[A-Za-z0-9.:_-]+")) {
        throw new IllegalArgumentException("not a host name or address: '" + h + "' in --hosts "
            + String.join(",", hosts));
      }
      if (!seen.add(h)) {
        throw new IllegalArgumentException("host " + h + " is listed twice in --hosts");
      }
    }
    if (user == null || !user.matches("[A-Za-z0-9._-]+")) {
      throw new IllegalArgumentException("not a user name: '" + user + "' (--ssh-user)");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("--ssh-port must be 1..65535: " + port);
    }
    if (dir == null || !dir.startsWith("/") || !dir.matches("/[A-Za-z0-9._/-]+")
        || dir.contains("..")) {
      throw new IllegalArgumentException("the run directory on the hosts must be an absolute "
          + "path of letters, digits, '.', '_', '-' and '/': '" + dir + "'");
    }
  }

  /** Defaults: the current user, OpenSSH's keys, port 22, {@code ~/.ssh/known_hosts}. */
  static SshTarget of(List<String> hosts) {
    return new SshTarget(hosts, System.getProperty("user.name"), null, 22,
        Path.of(System.getProperty("user.home"), ".ssh", "known_hosts"), false, DEFAULT_DIR);
  }

  SshTarget withUser(String u) {
    return new SshTarget(hosts, u, key, port, knownHosts, acceptNewHostKeys, dir);
  }

  SshTarget withKey(Path k) {
    return new SshTarget(hosts, user, k, port, knownHosts, acceptNewHostKeys, dir);
  }

  SshTarget withPort(int p) {
    return new SshTarget(hosts, user, key, p, knownHosts, acceptNewHostKeys, dir);
  }

  SshTarget withKnownHosts(Path file) {
    return new SshTarget(hosts, user, key, port, file, acceptNewHostKeys, dir);
  }

  SshTarget withAcceptNewHostKeys(boolean accept) {
    return new SshTarget(hosts, user, key, port, knownHosts, accept, dir);
  }

  SshTarget withDir(String d) {
    return new SshTarget(hosts, user, key, port, knownHosts, acceptNewHostKeys, d);
  }
}
