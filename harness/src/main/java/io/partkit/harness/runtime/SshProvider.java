package io.partkit.harness.runtime;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code ssh}: every node on a real host reached over SSH, this machine the control node. Its
 * options are typed constants, so that a caller with typed settings (the command line's {@code
 * --hosts}, {@code --ssh-user}, ... flags, a test's hosts) hands them over as they are.
 */
public final class SshProvider implements RuntimeProvider {

  /** Where runs keep their files on each host unless {@link #DIR} says otherwise. */
  public static final String DEFAULT_DIR = "/tmp/partkit-runs";

  /** The hosts, in order: node i runs on host i mod their count. */
  public static final RuntimeOption<List<String>> HOSTS = RuntimeOption.list("hosts",
      "host names or addresses, comma-separated; partitions need a host per node")
      .also(SshProvider::hostsProblem).required();

  /** Who logs in: the current user by default. */
  public static final RuntimeOption<String> USER = RuntimeOption.text("user",
      System.getProperty("user.name"), "a user name; root or passwordless sudo for nft")
      .also(v -> v.matches("[A-Za-z0-9._-]+") ? null : "not a user name");

  /** The private key; none given: OpenSSH's {@code ~/.ssh/id_*}. */
  public static final RuntimeOption<Path> KEY = RuntimeOption.path("key", null,
      "a private key file (default: OpenSSH's ~/.ssh/id_*)");

  /** sshd's port on every host. */
  public static final RuntimeOption<Integer> PORT = RuntimeOption.integer("port", 22, 1, 65535);

  /** The file host keys are checked against. */
  public static final RuntimeOption<Path> KNOWN_HOSTS = RuntimeOption.path("known-hosts",
      Path.of(System.getProperty("user.home"), ".ssh", "known_hosts"), "a known-hosts file");

  /** Whether a host seen for the first time is trusted, its key added to the known hosts. */
  public static final RuntimeOption<Boolean> ACCEPT_NEW_HOST_KEYS =
      RuntimeOption.flag("accept-new-host-keys", false);

  /** Where runs keep their files on each host. */
  public static final RuntimeOption<String> DIR = RuntimeOption.text("dir", DEFAULT_DIR,
      "an absolute path of letters, digits, '.', '_', '-' and '/'")
      .also(v -> v.matches("/[A-Za-z0-9._/-]+") && !v.contains("..") ? null
          : "not such a path");

  @Override
  public String name() {
    return "ssh";
  }

  @Override
  public String description() {
    return "real hosts over SSH, this machine the control node (Jepsen's way); needs hosts";
  }

  @Override
  public RuntimeOptions options() {
    return RuntimeOptions.of(name(), HOSTS, USER, KEY, PORT, KNOWN_HOSTS, ACCEPT_NEW_HOST_KEYS,
        DIR);
  }

  @Override
  public Class<? extends NodeRuntime> type() {
    return SshRuntime.class;
  }

  @Override
  public NodeRuntime create(RuntimeContext context) {
    return new SshRuntime(target(context.options()), context.dir());
  }

  /** Where and how the runtime logs in, from its checked options. */
  static SshTarget target(RuntimeValues options) {
    return new SshTarget(options.get(HOSTS), options.get(USER),
        options.optional(KEY).map(Path::toAbsolutePath).orElse(null), options.get(PORT),
        options.get(KNOWN_HOSTS).toAbsolutePath(), options.get(ACCEPT_NEW_HOST_KEYS),
        options.get(DIR));
  }

  private static String hostsProblem(List<String> hosts) {
    Set<String> seen = new HashSet<>();
    for (String h : hosts) {
      if (!h.matches("[A-Za-z0-9.:_-]+")) {
        return "not a host name or address: '" + h + "'";
      }
      if (!seen.add(h)) {
        return "host " + h + " is listed twice";
      }
    }
    return null;
  }
}
