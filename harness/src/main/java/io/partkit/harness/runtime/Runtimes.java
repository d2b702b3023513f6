package io.partkit.harness.runtime;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The runtimes on the class path, by name: every {@link RuntimeProvider} that {@link
 * ServiceLoader} finds (the harness's own four among them). A provider that fails to load is
 * listed in {@link #loadFailures()} instead of hiding the others.
 */
public final class Runtimes {

  /** The harness's own runtimes, in the order the command line lists them. */
  public static final List<String> BUILT_IN = List.of("processes", "netns", "containers", "ssh");

  private static final Pattern NODE_NAME = Pattern.compile("[a-z][a-z0-9-]{0,11}");

  private final Map<String, RuntimeProvider> byName;
  private final List<String> loadFailures;

  private Runtimes(Map<String, RuntimeProvider> byName, List<String> loadFailures) {
    this.byName = Collections.unmodifiableMap(byName);
    this.loadFailures = List.copyOf(loadFailures);
  }

  /**
   * The providers the context class loader (or this class's loader) finds: the built-in ones
   * first in their order, then the others by name.
   */
  public static Runtimes load() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    ClassLoader loader = context != null ? context : Runtimes.class.getClassLoader();
    Map<String, RuntimeProvider> found = new TreeMap<>();
    List<String> failures = new ArrayList<>();
    Iterator<RuntimeProvider> it = ServiceLoader.load(RuntimeProvider.class, loader).iterator();
    while (true) {
      try {
        if (!it.hasNext()) {
          break;
        }
        // a broken listing, a missing class or a throwing constructor fails this one provider
        RuntimeProvider provider = it.next();
        RuntimeProvider taken = found.putIfAbsent(provider.name(), provider);
        if (taken != null && taken.getClass() != provider.getClass()) {
          failures.add(provider.getClass().getName() + ": the name '" + provider.name()
              + "' is taken by " + taken.getClass().getName());
        }
      } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
        failures.add(String.valueOf(e.getMessage()));
      }
    }
    Map<String, RuntimeProvider> ordered = new LinkedHashMap<>();
    BUILT_IN.forEach(n -> Optional.ofNullable(found.remove(n)).ifPresent(p -> ordered.put(n, p)));
    ordered.putAll(found);
    return new Runtimes(ordered, failures);
  }

  /** The names found: the built-in ones first, then the others, sorted. */
  public List<String> names() {
    return List.copyOf(byName.keySet());
  }

  /** The provider called {@code name}, if one was found. */
  public Optional<RuntimeProvider> find(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /**
   * The provider called {@code name}.
   *
   * @throws IllegalArgumentException if none is on the class path (the message lists the known
   *     ones)
   */
  public RuntimeProvider provider(String name) {
    RuntimeProvider p = byName.get(name);
    if (p == null) {
      throw new IllegalArgumentException("unknown runtime '" + name + "': expected one of "
          + (byName.isEmpty() ? "(none on the class path)" : String.join(", ", byName.keySet()))
          + (loadFailures.isEmpty() ? "" : "; failed to load: " + String.join("; ", loadFailures)));
    }
    return p;
  }

  /** Providers listed in a {@code META-INF/services} file that could not be loaded, and why. */
  public List<String> loadFailures() {
    return loadFailures;
  }

  /**
   * Checks {@code spec}'s options against its provider's, before anything starts.
   *
   * @return the checked options, typed, with defaults
   * @throws IllegalArgumentException for an unknown runtime or a bad option (the message lists
   *     what is known)
   */
  public RuntimeValues check(RuntimeSpec spec) {
    return provider(spec.name()).options().check(spec);
  }

  /**
   * A new runtime as {@code spec} asks, keeping its files in {@code dir}.
   *
   * @throws IllegalArgumentException for an unknown runtime or a bad option (the message lists
   *     what is known)
   * @throws SetupException if the runtime cannot run on this machine (no root, no Docker engine)
   */
  public NodeRuntime create(RuntimeSpec spec, Path dir) {
    RuntimeValues options = check(spec);
    return provider(spec.name()).create(new RuntimeContext(dir, options));
  }

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
