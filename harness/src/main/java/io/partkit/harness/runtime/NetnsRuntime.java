package io.partkit.harness.runtime;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Each node is a process in a Linux network namespace of its own, so a partition drops real
 * packets. Needs root, {@code ip} (iproute2) and {@code nft} (nftables).
 *
 * <p>Layout, for a harness JVM with pid {@code P} and a free subnet {@code 10.77.K.0/24}:
 *
 * <pre>
 *   root namespace (the harness JVM: clients, coordinators)
 *     pkPr  10.77.K.254/24 ──veth──┐
 *   partkit-P-hub                  │
 *     bridge pkPb ── pkPh ─────────┘
 *                 ── pkP-1 ──veth── partkit-P-n1: eth0 10.77.K.1/24, lo
 *                 ── pkP-2 ──veth── partkit-P-n2: eth0 10.77.K.2/24, lo
 * </pre>
 *
 * The i-th node (from 0) gets {@code .(i+1)} and the same ports as on a machine of its own. The
 * root veth exists because the harness's clients and coordinators run in the root namespace and
 * must reach every node; its only effect there is a route to this one /24 through our own veth, so
 * traffic never leaves the machine. {@code K} is derived from {@code P} and skipped while any
 * root-side address or route already uses it (so two concurrent runs don't collide).
 *
 * <p>Each namespace gets {@code /etc/netns/<ns>/hosts} naming every node and an empty {@code
 * resolv.conf}: {@code ip netns exec} binds them over {@code /etc}, so no name lookup leaves the
 * run. A partition is an nftables table {@code inet partkit} in each grudging node's namespace
 * dropping input from the grudged nodes' addresses; the harness's {@code .254} is never dropped.
 *
 * <p>Owned names: namespaces {@code partkit-P-*}, root link {@code pkPr} (everything else lives
 * inside the owned namespaces) and {@code /etc/netns/partkit-P-*}. Nothing else is ever touched.
 * {@link #close} (also run by a shutdown hook, so Ctrl-C leaves nothing behind) kills the processes
 * and removes what this instance created; {@link #open} first removes owned names whose pid is no
 * longer alive (a crashed earlier run). Only one instance per JVM can be open at a time, since the
 * names derive from the pid.
 */
final class NetnsRuntime extends OwnAddressRuntime {

  private static final Pattern STALE_NS = Pattern.compile("partkit-(\\d+)-.+");
  private static final Pattern STALE_LINK = Pattern.compile("pk(\\d+)r");
  private static final Path ETC_NETNS = Path.of("/etc/netns");
  /** The names derive from the pid, so a second open instance in this JVM would collide. */
  private static final AtomicBoolean OPEN_IN_JVM = new AtomicBoolean();

  private final Path workDir;
  private final String prefix;
  private final String ip;
  private final String nft;
  private final long pid = ProcessHandle.current().pid();
  private final String hub = "partkit-" + pid + "-hub";
  private final String rootLink = "pk" + pid + "r";

  private final Map<String, String> namespaces = new LinkedHashMap<>(); // node -> namespace
  // what this instance created, so tear-down removes exactly that, also after a partial open
  private final List<String> createdNamespaces = new ArrayList<>();
  private final List<Path> createdEtcDirs = new ArrayList<>();
  private boolean createdRootLink;
  private final RuntimeLifecycle<ChildProcess> lifecycle =
      new RuntimeLifecycle<>("netns runtime", this::close);
  private boolean ownsJvmSlot;

  NetnsRuntime(Path workDir) {
    this(workDir, "10.77");
  }

  /**
   * With subnets {@code prefix.K.0/24} instead of {@code 10.77.K.0/24}: the SSH runtime's tests
   * make their hosts with this runtime on a range of their own.
   */
  NetnsRuntime(Path workDir, String prefix) {
    this.workDir = workDir;
    this.prefix = prefix;
    if (!isRoot()) {
      throw new SetupException("--runtime netns needs root (ip netns): run as root or use "
          + "--runtime processes");
    }
    this.ip = binary("ip");
    this.nft = binary("nft");
  }

  @Override
  public String name() {
    return "netns";
  }

  @Override
  public synchronized void open(List<String> nodes) {
    lifecycle.checkNotOpened();
    for (String n : nodes) {
      Runtimes.checkNodeName(n);
      if (n.equals("hub")) {
        throw new IllegalArgumentException(
            "node name 'hub' is taken by the netns runtime's bridge");
      }
      if (namespaces.put(n, "partkit-" + pid + "-" + n) != null) {
        throw new IllegalArgumentException("node " + n + " is listed twice");
      }
    }
    if (nodes.size() > 253) {
      throw new IllegalArgumentException("a /24 holds at most 253 nodes: " + nodes.size());
    }
    if (!OPEN_IN_JVM.compareAndSet(false, true)) {
      throw new SetupException("another netns runtime is open in this JVM (pid " + pid
          + "): close it first");
    }
    ownsJvmSlot = true;
    lifecycle.markOpened();
    try {
      removeStale();
      String subnet = freeSubnet();
      createNetwork(subnet);
      writeHostsFiles();
    } catch (RuntimeException e) {
      try {
        close();
      } catch (RuntimeException t) {
        e.addSuppressed(t);
      }
      throw e;
    }
  }

  private void createNetwork(String subnet) {
    String bridge = "pk" + pid + "b";
    addNamespace(hub);
    run(ip, "-n", hub, "link", "set", "lo", "up");
    // forward_delay 0: ports forward at once instead of after the 15 s listening/learning delay
    run(ip, "-n", hub, "link", "add", bridge, "type", "bridge", "forward_delay", "0");
    run(ip, "-n", hub, "link", "set", bridge, "up");

    // the root end is created in the root namespace, the peer directly inside the hub
    String hubEnd = "pk" + pid + "h";
    createdRootLink = true; // set before: a failure half-way may still have made it
    run(ip, "link", "add", rootLink, "type", "veth", "peer", "name", hubEnd, "netns", hub);
    run(ip, "-n", hub, "link", "set", hubEnd, "master", bridge, "up");
    run(ip, "addr", "add", subnet + ".254/24", "dev", rootLink);
    run(ip, "link", "set", rootLink, "up");

    Map<String, String> made = new LinkedHashMap<>();
    int i = 1;
    for (Map.Entry<String, String> e : namespaces.entrySet()) {
      String ns = e.getValue();
      String address = subnet + "." + i;
      String port = "pk" + pid + "-" + i; // at most 2 + 7 + 1 + 3 = 13 of the 15 chars allowed
      addNamespace(ns);
      // both ends are born inside namespaces: no name is ever taken in the root namespace
      run(ip, "link", "add", port, "netns", hub, "type", "veth", "peer", "name", "eth0", "netns",
          ns);
      run(ip, "-n", hub, "link", "set", port, "master", bridge, "up");
      run(ip, "-n", ns, "addr", "add", address + "/24", "dev", "eth0");
      run(ip, "-n", ns, "link", "set", "eth0", "up");
      run(ip, "-n", ns, "link", "set", "lo", "up");
      made.put(e.getKey(), address);
      i++;
    }
    publishAddresses(made); // node -> 10.77.K.x
  }

  private void addNamespace(String ns) {
    run(ip, "netns", "add", ns);
    createdNamespaces.add(ns);
  }

  /** {@code ip netns exec} binds these over /etc/hosts and /etc/resolv.conf in each namespace. */
  private void writeHostsFiles() {
    StringBuilder hosts = new StringBuilder("127.0.0.1 localhost\n::1 localhost\n");
    addresses().forEach((node, address) -> hosts.append(address).append(' ').append(node)
        .append('\n'));
    List<String> all = new ArrayList<>(createdNamespaces);
    try {
      for (String ns : all) {
        Path dir = ETC_NETNS.resolve(ns);
        Files.createDirectories(dir);
        createdEtcDirs.add(dir);
        Files.writeString(dir.resolve("hosts"), hosts);
        Files.writeString(dir.resolve("resolv.conf"), ""); // no resolver: lookups stay local
      }
      // a copy that outlives the run, for reading node logs afterwards
      Files.createDirectories(workDir);
      Files.writeString(workDir.resolve("netns-hosts"), hosts);
    } catch (IOException e) {
      throw new SetupException("cannot write the namespaces' hosts files under " + ETC_NETNS
          + " or " + workDir + ": " + e, e);
    }
  }

  /** The first 10.77.K.0/24 (K from the pid onwards) that no root-side address or route uses. */
  private String freeSubnet() {
    String used = run(ip, "-4", "-o", "addr", "show") + run(ip, "-4", "route", "show");
    int first = (int) (pid % 254);
    for (int j = 0; j < 254; j++) {
      int k = (first + j) % 254 + 1;
      String subnet = prefix + "." + k;
      if (!Pattern.compile("(?<![0-9.])" + Pattern.quote(subnet + ".")).matcher(used).find()) {
        return subnet;
      }
    }
    throw new SetupException("every " + prefix + ".K.0/24 is in use on this machine (ip -4 addr;"
        + " ip -4 route): remove stale ones or free one");
  }

  /**
   * Removes namespaces, /etc/netns dirs and root links named for a pid that is no longer alive
   * (an earlier run that crashed or was killed before its cleanup ran). Other names are left.
   */
  private void removeStale() {
    for (String line : run(ip, "netns", "list").split("\n")) {
      String ns = line.split(" ", 2)[0];
      if (isStale(STALE_NS.matcher(ns))) {
        run(ip, "netns", "del", ns);
      }
    }
    if (Files.isDirectory(ETC_NETNS)) {
      try (Stream<Path> dirs = Files.list(ETC_NETNS)) {
        for (Path dir : dirs.collect(Collectors.toList())) {
          if (isStale(STALE_NS.matcher(dir.getFileName().toString()))) {
            FileTrees.delete(dir);
          }
        }
      } catch (IOException e) {
        throw new SetupException("cannot list " + ETC_NETNS + ": " + e, e);
      }
    }
    // "12: pk123r@if11: <...>": the name sits between the index and '@' or ':'
    Pattern linkLine = Pattern.compile("^\\d+: ([^:@]+)[@:]", Pattern.MULTILINE);
    Matcher links = linkLine.matcher(run(ip, "-o", "link", "show"));
    while (links.find()) {
      String link = links.group(1);
      if (isStale(STALE_LINK.matcher(link))) {
        try {
          run(ip, "link", "del", link);
        } catch (SetupException e) {
          // Deleting the stale namespaces above frees their veth pairs asynchronously: the link
          // may have vanished since it was listed, which is what we wanted.
          if (exists(ip, "link", "show", link)) {
            throw e;
          }
        }
      }
    }
  }

  private static boolean isStale(Matcher name) {
    if (!name.matches()) {
      return false;
    }
    long owner;
    try {
      owner = Long.parseLong(name.group(1));
    } catch (NumberFormatException e) {
      return false;
    }
    return ProcessHandle.of(owner).map(p -> !p.isAlive()).orElse(true);
  }

  @Override
  public NodeProcess start(String node, List<String> command, Path log) throws IOException {
    String ns;
    synchronized (this) {
      lifecycle.checkOpen("start()");
      host(node);
      ns = namespaces.get(node);
    }
    // ip netns exec enters the namespace and execs the command: the pid stays the node's own
    List<String> full = new ArrayList<>(List.of(ip, "netns", "exec", ns));
    full.addAll(command);
    ChildProcess child = ChildProcess.start(node, full, log);
    if (!lifecycle.adopt(child)) { // close() ran meanwhile and could not see it
      child.destroy();
      throw RuntimeLifecycle.closedWhileStarting(node);
    }
    return child;
  }

  /** Replaces every node's table in one nft transaction per node ({@link NftCut}). */
  @Override
  protected void cut(Map<String, Set<String>> grudge) throws IOException {
    lifecycle.checkOpen("partition() or heal()");
    for (Map.Entry<String, String> e : namespaces.entrySet()) {
      String script = NftCut.script(e.getKey(), grudge, addresses());
      try {
        runWithInput(script, ip, "netns", "exec", e.getValue(), nft, "-f", "-");
      } catch (SetupException failed) {
        throw new IOException(failed.getMessage(), failed);
      }
    }
  }

  @Override
  public void close() {
    Optional<List<ChildProcess>> stopping = lifecycle.close();
    if (stopping.isEmpty()) {
      return;
    }
    List<ChildProcess> processes = stopping.get();
    List<String> failures = new ArrayList<>();
    processes.parallelStream().forEach(ChildProcess::destroy);
    // the root end first: deleting the hub frees it only later, asynchronously
    if (createdRootLink && exists(ip, "link", "show", rootLink)) {
      tryRun(failures, ip, "link", "del", rootLink);
    }
    for (int i = createdNamespaces.size() - 1; i >= 0; i--) {
      tryRun(failures, ip, "netns", "del", createdNamespaces.get(i));
    }
    for (Path dir : createdEtcDirs) {
      try {
        FileTrees.delete(dir);
      } catch (IOException | UncheckedIOException e) {
        failures.add("rm -r " + dir + ": " + e);
      }
    }
    if (ownsJvmSlot) {
      OPEN_IN_JVM.set(false);
    }
    if (!failures.isEmpty()) {
      throw new SetupException("netns tear-down left things behind; remove them by hand:\n"
          + String.join("\n", failures));
    }
  }

  private void tryRun(List<String> failures, String... command) {
    try {
      run(command);
    } catch (SetupException e) {
      failures.add(e.getMessage());
    }
  }

  private static boolean exists(String... command) {
    try {
      run(command);
      return true;
    } catch (SetupException e) {
      return false;
    }
  }

  private static String run(String... command) {
    return runWithInput(null, command);
  }

  /** Runs a command to its end and returns its output; fails with the command line and output. */
  private static String runWithInput(String input, String... command) {
    String line = String.join(" ", command);
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      try (OutputStream in = p.getOutputStream()) {
        if (input != null) {
          in.write(input.getBytes(StandardCharsets.UTF_8));
        }
      }
      // ip and nft print little and exit quickly: reading to the end cannot fill a pipe
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new SetupException("`" + line + "` did not finish in 60 s");
      }
      if (p.exitValue() != 0) {
        throw new SetupException("`" + line + "` failed (exit " + p.exitValue() + "): "
            + output.strip() + (input == null ? "" : "\ninput was:\n" + input));
      }
      return output;
    } catch (IOException e) {
      throw new SetupException("cannot run `" + line + "`: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SetupException("interrupted running `" + line + "`", e);
    }
  }

  /** The effective uid owns /proc/self. */
  private static boolean isRoot() {
    try {
      return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  /**
   * The absolute path of {@code name}: PATH first, then the sbin dirs a non-login PATH may lack.
   */
  private static String binary(String name) {
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(":")));
    }
    dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
    for (String dir : dirs) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    throw new SetupException("--runtime netns needs '" + name + "', which is not installed: "
        + "apt-get install iproute2 nftables");
  }
}
