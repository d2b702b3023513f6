package io.partkit.harness.runtime;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Set;
import java.util.List;
import java.util.regex.Pattern;

/** The node runtimes by name. */
public final class Runtimes {

  /** The names {@link #named} knows, in the order the command line lists them. */
  public static final List<String> NAMES = List.of("processes", "netns", "containers");

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
   * The runtime called {@code name}.
   *
   * @param workDir where a runtime keeps its files (hosts files, container mounts)
   * @throws IllegalArgumentException if the name is unknown (the message lists the known ones)
   * @throws SetupException if the runtime cannot run on this machine (no root, no Docker engine)
   */
  public static NodeRuntime named(String name, Path workDir) {
    switch (name) {
      case "processes":
        return processes();
      case "netns":
        return netns(workDir);
      case "containers":
        return new ContainerRuntime(workDir);
      default:
        throw new IllegalArgumentException("unknown runtime '" + name + "': expected one of "
            + String.join(", ", NAMES));
    }
  }

  /**
   * A port nobody listens on now on loopback. Another program may still take it before the node
   * binds it; the node then fails to start and says so (a setup error, not a wrong verdict).
   */
  static int freeLoopbackPort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new SetupException("no free port on loopback: " + e.getMessage(), e);
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
}
