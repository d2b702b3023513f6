package io.partkit.harness.runtime;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where the SSH runtime runs nodes and how it logs in: the hosts (names or addresses), the user,
 * the private key, the port, the known-hosts file that host keys are checked against, whether a
 * host never seen before may be trusted on first contact (its key is then added to that file),
 * and the directory on each host under which runs keep their files.
 *
 * <p>It travels as the runtime's name ({@link #runtimeName()}), {@code
 * ssh:h1,h2,h3;user=U;key=FILE;port=N;known-hosts=FILE;accept-new-host-keys=true;dir=DIR}, so
 * that a run's spec stays one string; {@code partkit verify --hosts ... --ssh-user ...} builds it.
 *
 * @param key the private key; null for OpenSSH's defaults ({@code ~/.ssh/id_*})
 */
public record SshTarget(List<String> hosts, String user, Path key, int port, Path knownHosts,
    boolean acceptNewHostKeys, String dir) {

  /** The prefix of the runtime's name. */
  public static final String PREFIX = "ssh:";

  /** Where runs keep their files on each host unless {@code dir=} says otherwise. */
  public static final String DEFAULT_DIR = "/tmp/partkit-runs";

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
  public static SshTarget of(List<String> hosts) {
    return new SshTarget(hosts, System.getProperty("user.name"), null, 22,
        Path.of(System.getProperty("user.home"), ".ssh", "known_hosts"), false, DEFAULT_DIR);
  }

  public SshTarget withUser(String u) {
    return new SshTarget(hosts, u, key, port, knownHosts, acceptNewHostKeys, dir);
  }

  public SshTarget withKey(Path k) {
    return new SshTarget(hosts, user, k, port, knownHosts, acceptNewHostKeys, dir);
  }

  public SshTarget withPort(int p) {
    return new SshTarget(hosts, user, key, p, knownHosts, acceptNewHostKeys, dir);
  }

  public SshTarget withKnownHosts(Path file) {
    return new SshTarget(hosts, user, key, port, file, acceptNewHostKeys, dir);
  }

  public SshTarget withAcceptNewHostKeys(boolean accept) {
    return new SshTarget(hosts, user, key, port, knownHosts, accept, dir);
  }

  public SshTarget withDir(String d) {
    return new SshTarget(hosts, user, key, port, knownHosts, acceptNewHostKeys, d);
  }

  /** The runtime name that {@link #parse} reads back. */
  public String runtimeName() {
    StringBuilder s = new StringBuilder(PREFIX).append(String.join(",", hosts))
        .append(";user=").append(user).append(";port=").append(port)
        .append(";known-hosts=").append(knownHosts);
    if (key != null) {
      s.append(";key=").append(key);
    }
    if (acceptNewHostKeys) {
      s.append(";accept-new-host-keys=true");
    }
    if (!dir.equals(DEFAULT_DIR)) {
      s.append(";dir=").append(dir);
    }
    return s.toString();
  }

  /**
   * Reads {@code ssh:HOSTS[;key=value...]}.
   *
   * @throws IllegalArgumentException naming what is wrong and what was expected
   */
  public static SshTarget parse(String name) {
    if (!name.startsWith(PREFIX)) {
      throw new IllegalArgumentException("--runtime ssh needs hosts: --hosts h1,h2,h3 (or "
          + "--runtime ssh:h1,h2,h3): '" + name + "'");
    }
    String[] parts = name.substring(PREFIX.length()).split(";");
    List<String> hosts = new ArrayList<>();
    for (String h : parts[0].split(",")) {
      hosts.add(h.strip());
    }
    SshTarget t = of(hosts);
    for (int i = 1; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("expected key=value after ';' in " + name + ": '"
            + parts[i] + "'");
      }
      String k = parts[i].substring(0, eq);
      String v = parts[i].substring(eq + 1);
      t = switch (k) {
        case "user" -> t.withUser(v);
        case "key" -> t.withKey(Path.of(v));
        case "port" -> t.withPort(number(v, name));
        case "known-hosts" -> t.withKnownHosts(Path.of(v));
        case "accept-new-host-keys" -> t.withAcceptNewHostKeys(Boolean.parseBoolean(v));
        case "dir" -> t.withDir(v);
        default -> throw new IllegalArgumentException("unknown ssh setting '" + k + "' in "
            + name + ": expected user, key, port, known-hosts, accept-new-host-keys or dir");
      };
    }
    return t;
  }

  private static int number(String v, String name) {
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("port must be a number in " + name + ": '" + v + "'");
    }
  }
}
