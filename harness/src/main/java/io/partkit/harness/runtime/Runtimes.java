package io.partkit.harness.runtime;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/** The node runtimes by name. */
public final class Runtimes {

  /** The names {@link #named} knows, in the order the command line lists them. */
  public static final List<String> NAMES = List.of("processes", "netns", "containers", "ssh");

  private static final Pattern NODE_NAME = Pattern.compile("[a-z][a-z0-9-]{0,11}");

  private Runtimes() {}

  /** Local processes on loopback: kill, pause, restart, membership; no network faults. */
  public static NodeRuntime processes() {
    return new LocalProcessRuntime();
  }

  /**
   * Each node in a Linux network namespace of its own on a private bridge: real partitions (packet
   * drops with nftables) besides kill, pause and restart. Needs root, iproute2 and nftables.
   *
   * @param workDir where it leaves a copy of the nodes' hosts file ({@code netns-hosts})
   * @throws SetupException if not root or {@code ip} or {@code nft} is missing
   */
  public static NodeRuntime netns(Path workDir) {
    return new NetnsRuntime(workDir);
  }

  /**
   * The runtime called {@code name}: {@code processes}, {@code netns}, or {@code containers}
   * (nodes in partkit's node image, {@value ContainerRuntime#DEFAULT_IMAGE}, built by {@code
   * tools/build-node-image}) or {@code containers:IMAGE} (nodes in an image of your own: java 17
   * on the PATH, sh, mkfifo, grep, and nft for partitions).
   *
   * <p>{@code ssh:h1,h2,...[;key=value...]} ({@link SshTarget#runtimeName()}) runs the nodes on
   * those hosts over SSH.
   *
   * @param workDir where a runtime keeps its files (hosts files, container mounts)
   * @throws IllegalArgumentException if the name is unknown (the message lists the known ones)
   * @throws SetupException if the runtime cannot run on this machine (no root, no Docker engine)
   */
  public static NodeRuntime named(String name, Path workDir) {
    if (name.equals("ssh") || name.startsWith(SshTarget.PREFIX)) {
      return new SshRuntime(SshTarget.parse(name), workDir);
    }
    if (name.startsWith("containers:")) {
      String image = name.substring("containers:".length());
      if (image.isBlank() || image.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("--runtime containers:IMAGE needs an image name "
            + "without blanks, e.g. containers:eclipse-temurin:17-jre: '" + name + "'");
      }
      return new ContainerRuntime(workDir, image);
    }
    switch (name) {
      case "processes":
        return processes();
      case "netns":
        return netns(workDir);
      case "containers":
        return new ContainerRuntime(workDir, ContainerRuntime.DEFAULT_IMAGE);
      default:
        throw new IllegalArgumentException("unknown runtime '" + name + "': expected one of "
            + String.join(", ", NAMES) + " (or containers:IMAGE, ssh:HOSTS)");
    }
  }

  /**
   * A port nobody listens on now on loopback, for a node to bind. Chosen below the kernel's
   * ephemeral range (Linux: {@code ip_local_port_range}, 32768 and up by default), where no
   * outgoing connection is ever given a port: a port picked by binding port 0 is an ephemeral
   * one, and on a busy machine some client's connect() took it before the node bound it
   * ("Address already in use"). Ports handed out in this JVM are not handed out again. Another
   * program may still bind the port first; the node then fails to start and says so (a setup
   * error, not a wrong verdict).
   */
  static int freeLoopbackPort() {
    int below = ephemeralLow();
    int low = Math.max(1024, below - 12_000);
    int span = below - low;
    int start = ThreadLocalRandom.current().nextInt(span);
    for (int i = 0; i < span; i++) {
      int port = low + (start + i) % span;
      synchronized (HANDED_OUT) {
        if (HANDED_OUT.contains(port)) {
          continue;
        }
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
          HANDED_OUT.add(port);
          return s.getLocalPort();
        } catch (IOException taken) {
          // in use: try the next one
        }
      }
    }
    throw new SetupException("no free port on loopback in " + low + ".." + (below - 1));
  }

  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  /** The first ephemeral port; 32768 (Linux's default) when the kernel does not say. */
  private static int ephemeralLow() {
    try {
      // readAllLines, not readString: on procfs (size 0) readString returned only "3"
      String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0);
      int low = Integer.parseInt(range.trim().split("\\s+")[0]);
      return low > 10_000 ? low : 32768;
    } catch (IOException | RuntimeException e) {
      return 32768;
    }
  }

  /**
   * Adds {@code names} to {@code known}, checking each.
   *
   * @throws IllegalArgumentException for a malformed or repeated name
   */
  static void register(Set<String> known, List<String> names) {
    for (String n : names) {
      checkNodeName(n);
      if (!known.add(n)) {
        throw new IllegalArgumentException("node " + n + " is listed twice");
      }
    }
  }

  static void checkNodeName(String name) {
    if (name == null || !NODE_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("node names are 1-12 lower-case letters, digits or '-',"
          + " starting with a letter: " + name);
    }
  }

  /**
   * The address of {@code node} in an open runtime's {@code addresses}.
   *
   * @throws IllegalArgumentException for a node the runtime was not opened with
   */
  static String address(Map<String, String> addresses, String node) {
    String address = addresses.get(node);
    if (address == null) {
      throw new IllegalArgumentException("unknown node " + node + ": the open runtime has "
          + addresses.keySet());
    }
    return address;
  }

  /**
   * Checks that every node a grudge names, on either side, is one of the runtime's.
   *
   * @throws IllegalArgumentException naming the first unknown node
   */
  static void checkGrudge(Map<String, Set<String>> grudge, Map<String, String> addresses) {
    for (Map.Entry<String, Set<String>> e : grudge.entrySet()) {
      address(addresses, e.getKey());
      e.getValue().forEach(n -> address(addresses, n));
    }
  }
}
