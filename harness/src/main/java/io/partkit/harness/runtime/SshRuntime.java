package io.partkit.harness.runtime;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Nodes as processes on real hosts reached over SSH, the way Jepsen runs: this JVM is the control
 * node (clients, checker), every node runs on a host of {@link SshTarget#hosts()}, assigned in
 * turn (node i on host i mod H; a node of its own per host when there are as many hosts as nodes).
 *
 * <p>On each host the run owns one directory, {@code DIR/partkit-M-P-R-hI} (control machine
 * {@code M}, its pid {@code P}, the {@code R}-th SSH runtime of this JVM, host index {@code I}):
 *
 * <pre>
 *   owner        who made it: machine, pid, nft table (read by the next run's stale sweep)
 *   lib/         the class path's directories, uploaded for this run
 *   files/       the harness's run directory as the nodes see it (data dirs, secret, stores)
 *   nodes/N-k.*  the k-th start of node N: launcher (.sh), pid, log, stdin pipe (.in)
 * </pre>
 *
 * and jars go to {@code DIR/cache/<sha256>-<name>}, shared by runs (they are large and rarely
 * change; docs/harness-runtimes.md says how to remove it by hand). A command's paths under the
 * local run directory become the same paths under {@code files/}; the local files among them
 * (the kv secret) are uploaded before the node starts; the JVM is the host's {@code java}; a
 * binary such as {@code /usr/bin/etcd} is used where the host has it and uploaded otherwise.
 *
 * <p>A node starts detached ({@code setsid}) with its pid written before it execs, its output in
 * its log and its standard input a named pipe it holds open read-write ({@link NodeProcess#send}
 * writes to the pipe over SSH). {@code tail --pid} streams the log back into the local log and
 * ends when the node dies. Kill, pause and resume are {@code kill -KILL/-STOP/-CONT} on the host.
 *
 * <p>A partition is nftables on the grudging node's host, in a table named after the run ({@code
 * inet partkit_M_P_R}, {@link NftCut}); only node addresses are dropped, so the control node's
 * clients always get through. A cut can only separate nodes that have a host each.
 *
 * <p>Tear-down ({@link #close}, also a shutdown hook) kills every process whose working directory
 * is the run's {@code files/}, deletes the run's table, writes each host's listing of the run
 * directory to {@code ssh-<host>-files.txt} locally and removes the directory. A control node
 * killed before that leaves them behind: {@link #open} removes every run directory (and its
 * processes and table) whose owner is a dead process of this machine.
 */
final class SshRuntime implements NodeRuntime, RuntimeCapability.Partitions {

  private static final AtomicInteger RUNS = new AtomicInteger();
  private static final long PID = ProcessHandle.current().pid();
  private static final Duration CALL = Duration.ofSeconds(60);
  private static final Duration UPLOAD = Duration.ofMinutes(10);
  private static final Map<Path, String> JAR_DIGESTS = new ConcurrentHashMap<>();
  private static final Pattern OWNER = Pattern.compile(
      "^owner (\\S+) machine=(\\S+) pid=(\\d+) table=(\\S+)$", Pattern.MULTILINE);

  /** A node is alive while /proc has it and it is not a zombie (a host's init may not reap). */
  private static final String ALIVE_FN =
      "alive() { s=$(sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -c1); "
          + "[ -n \"$s\" ] && [ \"$s\" != Z ]; }; ";

  private final SshTarget target;
  private final Path workDir;
  private final String machine = machineId();
  private final int number = RUNS.incrementAndGet();
  private final String run = "partkit-" + machine + "-" + PID + "-" + number;
  private final String table = "partkit_" + machine + "_" + PID + "_" + number;
  private final Path controlDir;
  private final RuntimeLifecycle<SshProcess> lifecycle =
      new RuntimeLifecycle<>("ssh runtime", this::close);

  private final List<SshHost> hosts = new ArrayList<>();
  private final Map<SshHost, Probe> probes = new ConcurrentHashMap<>();
  private final Map<String, SshHost> hostOf = new LinkedHashMap<>();
  private volatile Map<String, String> addresses = Map.of();
  private final Map<String, Map<String, Integer>> ports = new ConcurrentHashMap<>();
  private final Map<String, Integer> starts = new HashMap<>();
  private final Set<SshHost> dirsMade = Collections.synchronizedSet(new LinkedHashSet<>());
  /** Per host: local class path -> the class path there; local files uploaded. */
  private final Map<SshHost, Map<String, String> > classPaths = new ConcurrentHashMap<>();
  private final Map<SshHost, Set<Path>> uploaded = new ConcurrentHashMap<>();
  private final Map<SshHost, Map<String, String>> binaries = new ConcurrentHashMap<>();

  SshRuntime(SshTarget target, Path workDir) {
    this.target = target;
    this.workDir = workDir.toAbsolutePath().normalize();
    try {
      // ssh's control sockets: a short path (sockets allow ~100 chars), private to this run
      this.controlDir = Files.createTempDirectory(Path.of("/tmp"), "pkssh");
    } catch (IOException e) {
      throw new SetupException("cannot make a directory for ssh's sockets under /tmp: " + e, e);
    }
  }

  @Override
  public String name() {
    return "ssh";
  }

  /** The run's name, which its directories on the hosts begin with. */
  String runName() {
    return run;
  }

  /** The nftables table (family inet) its cuts live in. */
  String table() {
    return table;
  }

  /** What a host offers, learned at {@link #open}. */
  private record Probe(boolean root, String etcd, boolean ss, List<Matcher> owners) {}

  @Override
  public void open(List<String> nodes) {
    lifecycle.checkNotOpened();
    Runtimes.register(new HashSet<>(), nodes);
    lifecycle.markOpened();
    try {
      for (int i = 0; i < target.hosts().size(); i++) {
        String h = target.hosts().get(i);
        hosts.add(new SshHost(h, resolve(h), i, target, controlDir));
      }
      eachHost("checking", this::probe);
      eachHost("removing dead runs' leftovers from", this::removeStale);
      eachHost("making the run directory on", h -> {
        dirsMade.add(h);
        h.run("mkdir -p " + dir(h) + "/lib " + dir(h) + "/files " + dir(h) + "/nodes "
            + target.dir() + "/cache && echo 'machine=" + machine + " pid=" + PID + " table="
            + table + "' > " + dir(h) + "/owner", CALL);
      });
      Map<String, String> made = new LinkedHashMap<>();
      for (int i = 0; i < nodes.size(); i++) {
        SshHost h = hosts.get(i % hosts.size());
        hostOf.put(nodes.get(i), h);
        made.put(nodes.get(i), h.address);
      }
      addresses = Collections.unmodifiableMap(made);
    } catch (RuntimeException e) {
      try {
        close();
      } catch (RuntimeException t) {
        e.addSuppressed(t);
      }
      throw e;
    }
  }

  private static String resolve(String host) {
    try {
      for (InetAddress a : InetAddress.getAllByName(host)) {
        if (a instanceof Inet4Address) {
          return a.getHostAddress();
        }
      }
      return InetAddress.getByName(host).getHostAddress();
    } catch (UnknownHostException e) {
      throw new SetupException("host " + host + " (--hosts): its name does not resolve: "
          + e.getMessage());
    }
  }

  private interface HostStep {
    void run(SshHost h) throws IOException;
  }

  /** Runs {@code step} on every host at once; fails naming every host that failed and why. */
  private void eachHost(String what, HostStep step) {
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    hosts.parallelStream().forEach(h -> {
      try {
        step.run(h);
      } catch (IOException | RuntimeException e) {
        failures.add(e.getMessage());
      }
    });
    if (!failures.isEmpty()) {
      Collections.sort(failures);
      throw new SetupException("--runtime ssh: " + what + " the hosts failed:\n"
          + String.join("\n", failures));
    }
  }

  /** Logs in and checks for java 17+ and a usable nft; reads the owners of earlier runs. */
  private void probe(SshHost h) throws IOException {
    String out = h.run("echo uid=$(id -u); "
        + "if command -v java >/dev/null 2>&1; then echo java=$(java -version 2>&1 | head -1); "
        + "else echo java=; fi; "
        + "if [ $(id -u) = 0 ]; then N=nft; else N='sudo -n nft'; fi; "
        + "if command -v nft >/dev/null 2>&1 || [ -x /usr/sbin/nft ]; then "
        + "PATH=$PATH:/usr/sbin:/sbin; if $N list tables >/dev/null 2>&1; then echo nft=ok; "
        + "else echo nft=$($N list tables 2>&1 | head -1); fi; else echo nft=missing; fi; "
        + "echo etcd=$(command -v etcd); echo ss=$(command -v ss || ls /usr/sbin/ss 2>/dev/null);"
        + " for o in " + target.dir() + "/partkit-*/owner; do [ -f \"$o\" ] && "
        + "echo \"owner ${o%/owner} $(cat $o)\"; done; true", CALL);
    Map<String, String> facts = new HashMap<>();
    for (String line : out.split("\n")) {
      int eq = line.indexOf('=');
      if (!line.startsWith("owner ") && eq > 0) {
        facts.put(line.substring(0, eq), line.substring(eq + 1).strip());
      }
    }
    List<String> missing = new ArrayList<>();
    String java = facts.getOrDefault("java", "");
    Matcher v = Pattern.compile("version \"(\\d+)").matcher(java);
    if (java.isEmpty()) {
      missing.add("no java on the PATH of " + target.user() + " (install a Java 17 runtime, "
          + "e.g. apt-get install openjdk-17-jre-headless)");
    } else if (!v.find() || Integer.parseInt(v.group(1)) < 17) {
      missing.add("its java is older than 17 (" + java + "): install a Java 17 runtime");
    }
    String nft = facts.getOrDefault("nft", "missing");
    if (nft.equals("missing")) {
      missing.add("no nft (apt-get install nftables)");
    } else if (!nft.equals("ok")) {
      missing.add("nft does not work for " + target.user() + " (needs root or passwordless "
          + "sudo): " + nft);
    }
    if (!missing.isEmpty()) {
      throw new IOException("host " + h + ": " + String.join("; ", missing));
    }
    List<Matcher> owners = new ArrayList<>();
    Matcher m = OWNER.matcher(out);
    while (m.find()) {
      owners.add(OWNER.matcher(m.group()));
      owners.get(owners.size() - 1).matches();
    }
    probes.put(h, new Probe("0".equals(facts.get("uid")), facts.getOrDefault("etcd", ""),
        !facts.getOrDefault("ss", "").isEmpty(), owners));
  }

  /** Removes run directories (processes, table, files) whose owner is a dead pid here. */
  private void removeStale(SshHost h) throws IOException {
    StringBuilder script = new StringBuilder(ALIVE_FN);
    List<String> removed = new ArrayList<>();
    for (Matcher o : probes.get(h).owners()) {
      long pid = Long.parseLong(o.group(3));
      boolean dead = ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
      if (o.group(2).equals(machine) && dead && o.group(4).matches("partkit_[a-z0-9_]+")) {
        script.append(sweep(o.group(1), o.group(4), probes.get(h).root())).append("; ");
        removed.add(o.group(1));
      }
    }
    if (!removed.isEmpty()) {
      h.run(script + "true", CALL);
      System.err.println("ssh runtime: removed what dead runs left on " + h + ": " + removed);
    }
  }

  /**
   * Kills the processes working in {@code dir}/files, deletes {@code table} and {@code dir}. Only
   * processes whose working directory is the run's own are killed: a pid reused since is spared.
   */
  private static String sweep(String dir, String table, boolean root) {
    String q = SshHost.quote(dir);
    return "for f in " + q + "/nodes/*.pid; do [ -s \"$f\" ] || continue; p=$(cat \"$f\"); "
        + "[ \"$(readlink /proc/$p/cwd 2>/dev/null)\" = " + SshHost.quote(dir + "/files")
        + " ] && kill -9 $p 2>/dev/null; done; "
        + "for f in " + q + "/nodes/*.pid; do [ -s \"$f\" ] || continue; p=$(cat \"$f\"); i=0; "
        + "while alive $p && [ \"$(readlink /proc/$p/cwd 2>/dev/null)\" = "
        + SshHost.quote(dir + "/files") + " ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); "
        + "done; done; "
        + nft(root) + " delete table inet " + table + " 2>/dev/null; rm -rf " + q;
  }

  private static String nft(boolean root) {
    return root ? "PATH=$PATH:/usr/sbin:/sbin nft" : "sudo -n nft";
  }

  private String dir(SshHost h) {
    return target.dir() + "/" + run + "-h" + h.index;
  }

  @Override
  public String host(String node) {
    return Runtimes.address(addresses, node);
  }

  /** The usual port for the first node on a host, one more for each further node there. */
  @Override
  public int port(String node, String service, int defaultPort) {
    host(node);
    SshHost h = hostOf.get(node);
    int slot = 0;
    for (Map.Entry<String, SshHost> e : hostOf.entrySet()) {
      if (e.getKey().equals(node)) {
        break;
      }
      if (e.getValue() == h) {
        slot++;
      }
    }
    int port = defaultPort + slot;
    ports.computeIfAbsent(node, n -> new ConcurrentHashMap<>()).put(service, port);
    return port;
  }

  @Override
  public NodeProcess start(String node, List<String> command, Path log) throws IOException {
    int k;
    SshHost h;
    synchronized (this) {
      lifecycle.checkOpen("start()");
      host(node);
      h = hostOf.get(node);
      k = starts.merge(node, 1, Integer::sum);
    }
    Files.createDirectories(log.toAbsolutePath().getParent());
    List<String> remote = remoteCommand(h, command);
    checkPorts(node, h);
    String base = dir(h) + "/nodes/" + node + "-" + k;
    String launcher = "echo $$ > " + SshHost.quote(base + ".pid") + "\nexec "
        + String.join(" ", remote.stream().map(SshHost::quote).toList()) + " <> "
        + SshHost.quote(base + ".in") + " >> " + SshHost.quote(base + ".log") + " 2>&1\n";
    String script = "cd " + SshHost.quote(dir(h) + "/files") + " && cat > "
        + SshHost.quote(base + ".sh") + " && rm -f " + SshHost.quote(base + ".in") + " && mkfifo"
        + " -m 600 " + SshHost.quote(base + ".in") + " && { setsid sh " + SshHost.quote(base
        + ".sh") + " < /dev/null > /dev/null 2>&1 & } ; i=0; while [ ! -s "
        + SshHost.quote(base + ".pid") + " ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done;"
        + " cat " + SshHost.quote(base + ".pid");
    String out;
    try {
      out = h.run(script, launcher.getBytes(StandardCharsets.UTF_8), CALL).strip();
    } catch (IOException e) {
      throw new SetupException("cannot start " + node + " on host " + h + ": " + e.getMessage(),
          e);
    }
    long pid;
    try {
      pid = Long.parseLong(out);
    } catch (NumberFormatException e) {
      throw new SetupException(node + " on host " + h + " wrote no pid in 30 s: " + out);
    }
    SshProcess p = new SshProcess(node, h, base, pid, new ChildLines(node, log));
    if (!lifecycle.adopt(p)) {
      p.destroy();
      throw RuntimeLifecycle.closedWhileStarting(node);
    }
    p.follow();
    return p;
  }

  /** A port of the node's that something on its host listens on already: exit 4, not a hang. */
  private void checkPorts(String node, SshHost h) throws IOException {
    Map<String, Integer> mine = ports.getOrDefault(node, Map.of());
    if (mine.isEmpty() || !probes.get(h).ss()) {
      return;
    }
    StringBuilder script = new StringBuilder("PATH=$PATH:/usr/sbin:/sbin; ");
    for (Map.Entry<String, Integer> e : new TreeMap<>(mine).entrySet()) {
      script.append("ss -Hltn 'sport = :").append(e.getValue()).append("' | grep -q . && echo ")
          .append(e.getKey()).append('=').append(e.getValue()).append("; ");
    }
    String busy = h.run(script + "true", CALL).strip();
    if (!busy.isEmpty()) {
      throw new SetupException("port in use on host " + h + ": " + node + " needs "
          + busy.replace('\n', ' ') + ", which something there listens on already (`ss -ltnp` "
          + "on the host says what; stop it or leave the port free)");
    }
  }

  /**
   * The command as it runs on {@code h}: the host's java, the class path uploaded, paths under
   * the run directory moved to the run's {@code files/} there (local files uploaded, parents
   * made), a binary the host lacks uploaded.
   */
  private List<String> remoteCommand(SshHost h, List<String> command) throws IOException {
    List<String> cmd = new ArrayList<>(command);
    String hostJava = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    boolean isJava = !cmd.isEmpty() && cmd.get(0).equals(hostJava);
    if (isJava) {
      cmd.set(0, "java");
    } else if (!cmd.isEmpty() && cmd.get(0).startsWith("/")) {
      cmd.set(0, binary(h, cmd.get(0)));
    }
    String local = workDir.toString();
    String there = dir(h) + "/files";
    List<Path> files = new ArrayList<>();
    Set<String> parents = new LinkedHashSet<>();
    for (int i = 0; i < cmd.size(); i++) {
      boolean classPath = i > 0 && List.of("-cp", "-classpath").contains(cmd.get(i - 1));
      if (isJava && classPath) {
        cmd.set(i, classPath(h, cmd.get(i)));
        continue;
      }
      String arg = cmd.get(i);
      if (!arg.contains(local)) {
        continue;
      }
      for (String token : arg.split("[,=;:]")) {
        if (token.startsWith(local)) {
          Path p = Path.of(token);
          parents.add(there + token.substring(local.length(),
              token.length() - p.getFileName().toString().length() - 1));
          if (Files.isRegularFile(p)) {
            files.add(p);
          }
        }
      }
      cmd.set(i, arg.replace(local, there));
    }
    if (!parents.isEmpty()) {
      h.run("mkdir -p " + String.join(" ", parents.stream().map(SshHost::quote).toList()), CALL);
    }
    Set<Path> done = uploaded.computeIfAbsent(h, x -> ConcurrentHashMap.newKeySet());
    for (Path f : files) {
      if (done.add(f)) {
        String to = there + f.toString().substring(local.length());
        h.run("cat > " + SshHost.quote(to) + " && chmod 600 " + SshHost.quote(to),
            Files.readAllBytes(f), CALL);
      }
    }
    return cmd;
  }

  /** The host's own copy of {@code path} if it has one, else one uploaded to the cache. */
  private String binary(SshHost h, String path) throws IOException {
    Map<String, String> known = binaries.computeIfAbsent(h, x -> new ConcurrentHashMap<>());
    String found = known.get(path);
    if (found != null) {
      return found;
    }
    synchronized (h) {
      String has = h.run("[ -x " + SshHost.quote(path) + " ] && echo yes || echo no", CALL)
          .strip();
      if (has.equals("yes")) {
        found = path;
      } else {
        Path local = Path.of(path);
        found = target.dir() + "/cache/" + digest(local) + "-" + local.getFileName();
        h.run("[ -x " + SshHost.quote(found) + " ] || { cat > " + SshHost.quote(found + ".part")
            + " && chmod 755 " + SshHost.quote(found + ".part") + " && mv "
            + SshHost.quote(found + ".part") + " " + SshHost.quote(found) + "; }",
            Files.readAllBytes(local), UPLOAD);
      }
      known.put(path, found);
      return found;
    }
  }

  /**
   * The class path on {@code h}: jars in the shared cache by content digest (uploaded when
   * missing), directories copied into the run's {@code lib/}. One tar stream per host.
   */
  private String classPath(SshHost h, String localClassPath) throws IOException {
    Map<String, String> known = classPaths.computeIfAbsent(h, x -> new ConcurrentHashMap<>());
    synchronized (h) {
      String found = known.get(localClassPath);
      if (found != null) {
        return found;
      }
      Set<String> cached = new HashSet<>(Arrays.asList(
          h.run("ls -1 " + target.dir() + "/cache", CALL).split("\n")));
      Path stage = Files.createTempDirectory(controlDir, "stage");
      Files.createDirectories(stage.resolve("cache"));
      Files.createDirectories(stage.resolve("lib"));
      List<String> entries = new ArrayList<>();
      int dirs = 0;
      int missing = 0;
      for (String e : localClassPath.split(File.pathSeparator)) {
        if (e.isEmpty() || !Files.exists(Path.of(e))) {
          continue;
        }
        Path p = Path.of(e).toAbsolutePath();
        if (Files.isDirectory(p)) {
          String name = (dirs++) + "-" + p.getFileName();
          Files.createSymbolicLink(stage.resolve("lib").resolve(name), p);
          entries.add(dir(h) + "/lib/" + name);
          missing++;
        } else {
          String name = digest(p) + "-" + p.getFileName();
          if (!cached.contains(name)) {
            Files.createSymbolicLink(stage.resolve("cache").resolve(name), p);
            missing++;
          }
          entries.add(target.dir() + "/cache/" + name);
        }
      }
      if (missing > 0) {
        upload(h, stage);
      }
      deleteLocal(stage);
      String remote = String.join(":", entries);
      known.put(localClassPath, remote);
      return remote;
    }
  }

  /** {@code tar -ch} of the staged links (following them), unpacked into the run and cache. */
  private void upload(SshHost h, Path stage) throws IOException {
    Process tar = new ProcessBuilder("tar", "-chf", "-", "-C", stage.toString(), "cache", "lib")
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    // the cache is shared by runs: a jar is unpacked under a temporary name and renamed whole
    String script = "set -e; t=$(mktemp -d " + target.dir() + "/cache/.in-XXXXXX); "
        + "tar -xf - -C \"$t\"; for f in \"$t\"/cache/*; do [ -e \"$f\" ] && "
        + "mv -f \"$f\" " + target.dir() + "/cache/; done; "
        + "cp -R \"$t\"/lib/. " + SshHost.quote(dir(h) + "/lib/") + "; rm -rf \"$t\"";
    Process ssh = new ProcessBuilder(h.command(script)).redirectErrorStream(true).start();
    Thread pipe = new Thread(() -> {
      try (InputStream in = tar.getInputStream(); OutputStream out = ssh.getOutputStream()) {
        in.transferTo(out);
      } catch (IOException e) {
        // ssh ended early: its exit code and output say why
      }
    }, "upload-" + h.index);
    pipe.setDaemon(true);
    pipe.start();
    try {
      String said = new String(ssh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!ssh.waitFor(UPLOAD.toMillis(), TimeUnit.MILLISECONDS) || ssh.exitValue() != 0
          || !tar.waitFor(60, TimeUnit.SECONDS) || tar.exitValue() != 0) {
        ssh.destroyForcibly();
        tar.destroyForcibly();
        throw new IOException("uploading the class path to host " + h + " failed: "
            + said.strip());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ssh.destroyForcibly();
      tar.destroyForcibly();
      throw new IOException("interrupted uploading to host " + h, e);
    }
  }

  private static String digest(Path file) throws IOException {
    String known = JAR_DIGESTS.get(file);
    if (known != null) {
      return known;
    }
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        d.update(buf, 0, n);
      }
      String hex = HexFormat.of().formatHex(d.digest()).substring(0, 16);
      JAR_DIGESTS.put(file, hex);
      return hex;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  @Override
  public void wipe(String node, Path dir) throws IOException {
    host(node);
    hostOf.get(node).run("rm -rf " + SshHost.quote(there(node, dir)), CALL);
  }

  @Override
  public Path fetch(String node, Path file) throws IOException {
    host(node);
    SshHost h = hostOf.get(node);
    String out = h.run("if [ -f " + SshHost.quote(there(node, file)) + " ]; then echo y; "
        + "base64 -w0 " + SshHost.quote(there(node, file)) + "; else echo n; fi", CALL);
    Path copy = workDir.resolve("ssh-fetched").resolve(node).resolve(file.getFileName());
    Files.createDirectories(copy.getParent());
    if (out.startsWith("y")) {
      byte[] bytes = java.util.Base64.getDecoder().decode(out.substring(1).strip());
      Path tmp = copy.resolveSibling(copy.getFileName() + ".part");
      Files.write(tmp, bytes);
      Files.move(tmp, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } else {
      Files.deleteIfExists(copy);
    }
    return copy;
  }

  /** Where {@code local} (a path under the run directory) is on {@code node}'s host. */
  private String there(String node, Path local) {
    Path p = local.toAbsolutePath().normalize();
    if (!p.startsWith(workDir)) {
      throw new IllegalArgumentException(local + " is not under the run directory " + workDir);
    }
    return dir(hostOf.get(node)) + "/files/" + workDir.relativize(p);
  }

  @Override
  public synchronized void partition(Map<String, Set<String>> grudge) throws IOException {
    for (Map.Entry<String, Set<String>> e : grudge.entrySet()) {
      host(e.getKey());
      e.getValue().forEach(this::host);
      for (String n : e.getValue()) {
        if (!n.equals(e.getKey()) && (shared(e.getKey()) || shared(n))) {
          throw new IOException("cannot cut " + e.getKey() + " off from " + n + ": a cut drops a "
              + "host's packets, and " + (shared(e.getKey()) ? e.getKey() : n) + " shares its "
              + "host with another node (give every node a host of its own: --hosts with as "
              + "many hosts as nodes)");
        }
      }
    }
    cut(grudge);
  }

  private boolean shared(String node) {
    SshHost h = hostOf.get(node);
    return hostOf.values().stream().filter(x -> x == h).count() > 1;
  }

  @Override
  public synchronized void heal() throws IOException {
    cut(Map.of());
  }

  /** One nft transaction per host: the table of the node it hosts alone, or none. */
  private void cut(Map<String, Set<String>> grudge) throws IOException {
    lifecycle.checkOpen("partition() or heal()");
    Map<SshHost, String> scripts = new LinkedHashMap<>();
    for (Map.Entry<String, SshHost> e : hostOf.entrySet()) {
      Map<String, Set<String>> mine = shared(e.getKey()) ? Map.of() : grudge;
      scripts.merge(e.getValue(), NftCut.script(e.getKey(), mine, addresses, "inet " + table),
          (a, b) -> a.contains(" drop") ? a : b);
    }
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    scripts.entrySet().parallelStream().forEach(e -> {
      try {
        e.getKey().run(nft(probes.get(e.getKey()).root()) + " -f -",
            e.getValue().getBytes(StandardCharsets.UTF_8), CALL);
      } catch (IOException x) {
        failures.add(x.getMessage());
      }
    });
    if (!failures.isEmpty()) {
      throw new IOException(String.join("; ", failures));
    }
  }

  @Override
  public void close() {
    Optional<List<SshProcess>> stopping = lifecycle.close();
    if (stopping.isEmpty()) {
      return;
    }
    List<SshProcess> processes = stopping.get();
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    new ArrayList<>(dirsMade).parallelStream().forEach(h -> {
      try {
        Probe probe = probes.get(h);
        String listing = h.run(ALIVE_FN + "cd " + SshHost.quote(dir(h)) + " && find . -path "
            + "./lib -prune -o -printf '%y %10s %TY-%Tm-%Td %TH:%TM %p\\n' | sort -k5; cd /; "
            + sweep(dir(h), table, probe == null || probe.root()) + "; true", CALL);
        Files.createDirectories(workDir);
        Files.writeString(workDir.resolve("ssh-" + h.name + "-files.txt"), listing);
      } catch (IOException | UncheckedIOException e) {
        failures.add("host " + h + ": " + e.getMessage());
      }
    });
    for (SshProcess p : processes) {
      p.awaitFollowerEnd();
    }
    hosts.forEach(SshHost::closeConnection);
    deleteLocal(controlDir);
    if (!failures.isEmpty()) {
      throw new SetupException("ssh tear-down left things behind; the next run from this "
          + "machine removes them, or by hand on each host: kill the processes in " + target.dir()
          + "/" + run + "-h*/nodes/*.pid, nft delete table inet " + table + ", rm -rf "
          + target.dir() + "/" + run + "-h*\n" + String.join("\n", failures));
    }
  }

  private static void deleteLocal(Path dir) {
    try {
      FileTrees.delete(dir);
    } catch (IOException e) {
      // a temporary directory: nothing of the run's is lost
    }
  }

  /** A short id of this machine: the first 8 hex digits of /etc/machine-id, else of its name. */
  private static String machineId() {
    try {
      String id = Files.readString(Path.of("/etc/machine-id")).strip();
      if (id.matches("[0-9a-f]{8,}")) {
        return id.substring(0, 8);
      }
    } catch (IOException e) {
      // no machine id: the host name will do
    }
    String name;
    try {
      name = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      name = "localhost";
    }
    return String.format("%08x", name.hashCode());
  }

  /** A node's process on its host, known by its pid. */
  private final class SshProcess implements NodeProcess {
    private final String node;
    private final SshHost host;
    private final String base;
    private final long pid;
    private final ChildLines lines;
    private volatile Process follower;
    private volatile boolean ended;
    private Thread pump;

    SshProcess(String node, SshHost host, String base, long pid, ChildLines lines) {
      this.node = node;
      this.host = host;
      this.base = base;
      this.pid = pid;
      this.lines = lines;
    }

    /** Streams its log here until it dies ({@code tail --pid}). */
    void follow() throws IOException {
      follower = host.spawn("exec tail --pid=" + pid + " -n +1 -F " + SshHost.quote(base
          + ".log") + " 2>/dev/null");
      pump = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
            follower.getInputStream(), StandardCharsets.UTF_8))) {
          boolean marked = false;
          for (String line; (line = r.readLine()) != null; ) {
            if (marked) {
              lines.accept(line);
            } else {
              marked = line.equals(SshHost.MARK); // before it: the shell's start-up files
            }
          }
        } catch (IOException | UncheckedIOException e) {
          // the connection broke: the node's log on its host keeps the rest
        } finally {
          ended = true;
          lines.end();
        }
      }, "ssh-output-" + node + "-" + pid);
      pump.setDaemon(true);
      pump.start();
    }

    void awaitFollowerEnd() {
      Process f = follower;
      if (f == null) {
        return;
      }
      try {
        if (pump != null) {
          pump.join(5000);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      f.destroyForcibly();
    }

    void destroy() {
      try {
        signal("KILL");
      } catch (RuntimeException e) {
        // tear-down sweeps the host anyway
      }
      awaitFollowerEnd();
    }

    @Override
    public String node() {
      return node;
    }

    @Override
    public long pid() {
      return pid;
    }

    @Override
    public boolean isAlive() {
      if (ended) {
        return false; // tail --pid ended: the process is gone
      }
      try {
        return host.run(ALIVE_FN + "alive " + pid + " && echo yes || echo no", CALL).strip()
            .equals("yes");
      } catch (IOException e) {
        throw new SetupException("cannot ask host " + host + " whether " + node + " runs: "
            + e.getMessage(), e);
      }
    }

    @Override
    public String awaitLine(String prefix, Duration timeout) {
      return lines.await(prefix, timeout, () -> true);
    }

    @Override
    public void skipLines() {
      lines.skip();
    }

    @Override
    public void send(String line) throws IOException {
      host.run(ALIVE_FN + "alive " + pid + " || { echo '" + node + " is not running'; exit 3; }; "
          + "cat >> " + SshHost.quote(base + ".in"),
          (line + "\n").getBytes(StandardCharsets.UTF_8), CALL);
    }

    @Override
    public void kill() {
      try {
        host.run(ALIVE_FN + "kill -9 " + pid + " 2>/dev/null; i=0; while alive " + pid
            + "; do [ $i -gt 600 ] && { echo still alive; exit 3; }; sleep 0.05; i=$((i+1)); "
            + "done", CALL);
      } catch (IOException e) {
        throw new SetupException("kill -9 of " + node + " (pid " + pid + " on host " + host
            + ") failed: " + e.getMessage(), e);
      }
    }

    @Override
    public void pause() {
      signal("STOP");
    }

    @Override
    public void resume() {
      signal("CONT");
    }

    private void signal(String name) {
      try {
        host.run("kill -" + name + " " + pid + " 2>/dev/null; true", CALL);
      } catch (IOException e) {
        throw new SetupException("kill -" + name + " of " + node + " (pid " + pid + " on host "
            + host + ") failed: " + e.getMessage(), e);
      }
    }
  }
}
