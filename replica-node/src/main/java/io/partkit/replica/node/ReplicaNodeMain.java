package io.partkit.replica.node;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.coordinator.Leadership;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStoreException;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.VersionedValues;
import io.partkit.coordinator.etcd.EtcdMetadataStores;
import io.partkit.replica.Placement;
import io.partkit.replica.Timing;
import io.partkit.replica.node.access.Admission;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.replica.strategy.StrategyPlacement;
import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.Partitioner;
import io.partkit.spi.Partitioners;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs one process of a Fixed Partitions cluster: a node (one {@link io.partkit.replica.Replica}
 * and its write-ahead log) or the control (the {@link io.partkit.replica.Control}).
 *
 * <pre>
 * java -Xmx128m -XX:+ExitOnOutOfMemoryError -cp CP io.partkit.replica.node.ReplicaNodeMain \
 *     --role node --id 0 --data DIR --nodes h:p,h:p,h:p --control h:p [--timing R,S,P,D] \
 *     [--compact-bytes N] [--secret-file FILE]
 * java ... ReplicaNodeMain --role control --data DIR --nodes h:p,h:p,h:p --control h:p \
 *     (--partitions 16 | --split-keys HEX,HEX | --tokens T,T) --replicas 3 [--strategy NAME] \
 *     [--timing R,S,P,D]
 * java ... ReplicaNodeMain --role control --store etcd:URL,URL --name NAME --nodes ... \
 *     --control h:p --partitions 16 --replicas 3 [--store-prefix /partkit/replica] ...
 * </pre>
 *
 * <p>Node {@code i} listens on the {@code i}-th address of {@code --nodes}, the control on {@code
 * --control}. A node's {@code --control} may list several controls (one leads, see below): it
 * sends to each. {@code --timing} is the protocol's {@link Timing} in milliseconds (resend,
 * suspect, ping, down; default {@link #TIMING}, more patient than the simulator's since real
 * processes pause for garbage collection and a loaded machine's scheduler). {@code
 * --compact-bytes} is how much a node's log grows before it is compacted while running (default
 * {@link #COMPACT_BYTES}): a compaction reads back the log's durable records and a start replays
 * them, a record at a time, so it bounds the work more than the memory; tests take a small one to
 * compact often.
 *
 * <p>The control keeps its durable state (the table with its epochs and level members, the
 * nodes leaving) in a write-ahead log of its own in {@code --data}, the stand-in for the
 * coordinator's linearizable store: each change is a record synced before the configurations
 * that announce it leave. At start it replays the log ({@link io.partkit.replica.Control#restore};
 * an empty log starts the first table of {@code --partitions}), so it may be killed and
 * restarted: a restarted control hands out no epoch twice, counts a node up only once it
 * answers, and changes nothing for a full down-time. {@code --partitions} and {@code --replicas}
 * must stay the same across restarts.
 *
 * <p>The first table numbers keys by the core's hash halves of {@code --partitions} partitions
 * (partkit's hash slots, {@link io.partkit.replica.Partitioning}), or, with {@code --split-keys}
 * instead, by key ranges cut at those keys (in hex, strictly increasing in unsigned byte order;
 * one partition more than keys), or, with {@code --tokens}, by a token ring of those tokens
 * (signed, strictly increasing; Cassandra's murmur3 and convention), as partkit's {@link
 * KeyRanges} and {@link TokenRanges} route ({@link io.partkit.replica.Numbering}). One of the
 * three is given, and the same one at every start (a restart numbers as its log says).
 *
 * <p>With {@code --store etcd:URL,...} (an etcd cluster, keys under {@code --store-prefix},
 * default {@value #STORE_PREFIX}) or {@code --store file:PATH} (the embedded store, persisted to
 * one file: one process at a time), the control keeps its state in the coordinator's store
 * instead ({@link StoredControlState}), and several controls may run: each prints {@code REPLICA
 * STANDBY NAME} and campaigns in the store's election under {@code --name}; the one elected reads
 * the state, then listens and acts; the others wait, not listening, so that nodes and clients
 * reach only the leader. A control that loses the election, or finds that another one wrote the
 * state since it did, stops with status 75: a supervisor restarts it, as a standby.
 *
 * <p>{@code --secret-file FILE} gives the process the cluster's shared secret ({@link
 * SharedSecret#read}: the file's bytes, at least 16; every node, control and client of the
 * cluster needs the same): it admits only peers that prove it, and proves it to the peers it
 * connects to. Without it the process listens on a loopback address only (a usage error
 * otherwise), as anyone who reaches it could act as a node, the control or a client.
 *
 * <p>{@code --strategy NAME} makes the control place copies by the partkit strategy of that name
 * ({@code fixed} or {@code rendezvous}: those whose partitions are hash slots, {@link
 * StrategyPlacement}) instead of its own round robin and least loaded rule. The strategy is not
 * in the log: a restarted control must be given the same one.
 *
 * <p>Once it listens it prints {@code REPLICA LISTENING host:port} on standard output; the control
 * prints {@code REPLICA SETTLED} the first time every partition has its copies, all level. Events
 * that matter (records replayed, a torn tail dropped, configurations the control decides, links
 * failing) go to standard error, one dated line each. It exits when its standard input closes (a
 * dying parent leaves no process behind) or when killed; a kill loses nothing acknowledged.
 *
 * <p>The control reads commands on its standard input, one a line ({@link ControlCommand}):
 * {@code split P} and {@code split-all}, {@code leave N}, {@code join N} and {@code forget N}.
 * Each split is answered on standard output, {@code REPLICA SPLIT P INTO C MODULUS M PARTITIONS N}
 * once committed, or {@code REPLICA SPLIT REFUSED P: why}; a leave, join or forget {@code REPLICA
 * LEAVE N}, {@code REPLICA JOIN N} or {@code REPLICA FORGET N} once durable; a line that is no
 * command gets an error line on standard error and is otherwise ignored. The control (or the
 * coordinator's) also prints {@code REPLICA JOINING P N FROM PRIMARY EPOCH E} once a
 * configuration that adds node {@code N} to partition {@code P} is durable.
 *
 * <p>Exit statuses: 1 for a log it must not start from (a damaged record followed by intact
 * ones: what was durable is lost, the node or control needs new data), 2 for a usage error, 70
 * on an {@link Error} or a bug on the decision path (3 when the JVM runs out of memory with
 * {@code -XX:+ExitOnOutOfMemoryError}, as it should), 74 when the log fails (a full disk) or the
 * store cannot be reached at start, 75 for a control that another one succeeded (it lost the
 * election, or another control wrote the state since it read or wrote it, also while it opened
 * it). A clean stop (standard input closed) exits 0, whatever the log was doing.
 */
public final class ReplicaNodeMain {

  /** The timing of real processes: resend 50 ms, suspect 1 s, ping 100 ms, down 1.5 s. */
  public static final Timing TIMING = new Timing(50, 1000, 100, 1500);
  /** The etcd key prefix of a control's state by default. */
  public static final String STORE_PREFIX = "/partkit/replica";

  /**
   * How much a node's log grows before it is compacted while running, unless {@code
   * --compact-bytes} says: 16 MiB.
   */
  public static final long COMPACT_BYTES = Wal.COMPACT_BYTES;

  /** How a split refusal says a range has no midpoint to cut at. */
  public static final String NO_MIDPOINT = "has no midpoint to cut at";

  private ReplicaNodeMain() {}

  /** Entry point. */
  public static void main(String[] args) throws IOException, InterruptedException {
    run(args, Interposer.NONE);
  }

  /**
   * {@link #main}, a node's core behind {@code interposer} (a control's never is): for a test's
   * node process that plants a bug, which {@link #main} cannot be told to.
   */
  public static void run(String[] args, Interposer interposer)
      throws IOException, InterruptedException {
    Consumer<String> log = processLog();
    Map<String, String> options = options(args);
    String role = options.get("--role");
    boolean stored = options.get("--store") != null;
    if (args.length % 2 != 0 || role == null || options.get("--nodes") == null
        || options.get("--control") == null
        || options.get("--data") == null && !(role.equals("control") && stored)
        || role.equals("node") && (options.get("--id") == null || stored)
        || role.equals("control") && (tables(options) != 1
            || options.get("--replicas") == null
            || stored && options.get("--name") == null)
        || !role.equals("node") && !role.equals("control")) {
      System.err.println("usage: ReplicaNodeMain --role node --id <i> --data <dir> --nodes"
          + " <host:port,...> --control <host:port,...> [--timing <resend,suspect,ping,down ms>]"
          + " [--compact-bytes <n>] [--secret-file <file>]\n"
          + "       ReplicaNodeMain --role control --data <dir> --nodes <host:port,...>"
          + " --control <host:port> (--partitions <n> | --split-keys <hex,...> | --tokens"
          + " <t,...>) --replicas <n> [--strategy <name>]"
          + " [--timing ...] [--secret-file <file>]\n"
          + "       ReplicaNodeMain --role control --store <etcd:url,...|file:path> --name <name>"
          + " --nodes ... --control <host:port> (--partitions ... | --split-keys ... | --tokens"
          + " ...) --replicas <n>"
          + " [--store-prefix <etcd key prefix>] [--strategy <name>] [--timing ...]"
          + " [--secret-file <file>]");
      System.exit(2);
      return;
    }
    if (role.equals("control") && stored) {
      runStoredControl(options, log);
      return;
    }
    ReplicaNode node;
    try {
      List<InetSocketAddress> nodes = addresses(options.get("--nodes"));
      List<InetSocketAddress> controls = addresses(options.get("--control"));
      Timing timing = timing(options.get("--timing"));
      ConnectionPolicy policy = policy(options.get("--secret-file"));
      if (role.equals("node")) {
        int id = Integer.parseInt(options.get("--id"));
        if (id < 0 || id >= nodes.size()) {
          throw new IllegalArgumentException("--id " + id + " is not one of the " + nodes.size()
              + " nodes");
        }
        node = ReplicaNode.node(id, nodes, controls, Path.of(options.get("--data")), timing,
            compactBytes(options.get("--compact-bytes")), policy, log, ReplicaNode.halting(log),
            new SimpleMeterRegistry(), interposer);
      } else {
        int replicas = Integer.parseInt(options.get("--replicas"));
        node = ReplicaNode.control(nodes, own(controls), Path.of(options.get("--data")),
            scheme(options), replicas,
            placement(options.get("--strategy"), replicas), timing, policy, log);
      }
    } catch (Wal.Damaged e) {
      log.accept("refusing to start: " + e.getMessage());
      System.exit(1);
      return;
    } catch (IllegalArgumentException e) {
      System.err.println("ReplicaNodeMain: " + e.getMessage());
      System.exit(2);
      return;
    } catch (IOException e) {
      // one line naming the process and the cause (a full disk, an address taken), no trace
      log.accept((role.equals("node") ? "node " + options.get("--id") : "control")
          + ": cannot start: " + e);
      System.exit(ReplicaNode.EXIT_IO);
      return;
    }
    listening(node, role.equals("control"));
    if (role.equals("control")) {
      readCommands(() -> node, log);
    } else {
      InputStream in = System.in;
      while (in.read() >= 0) {
        // wait for the parent to go away
      }
    }
    node.close();
    System.exit(0);
  }

  /**
   * The process's log, dated lines on standard error; an exception no thread caught stops the
   * process from then on (70), as one on the state thread does.
   */
  static Consumer<String> processLog() {
    Consumer<String> log = line -> System.err.println(Instant.now() + " " + line);
    Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
      e.printStackTrace();
      ReplicaNode.fail(log, "stopping on " + e + " in thread " + thread.getName(),
          ReplicaNode.EXIT_ERROR);
    });
    return log;
  }

  /**
   * The connection policy of {@code --secret-file} ({@code file}; null: no secret), with the
   * default limits.
   *
   * @throws IllegalArgumentException when the file cannot be read or holds too short a secret
   */
  static ConnectionPolicy policy(String file) {
    if (file == null) {
      return ConnectionPolicy.OPEN;
    }
    try {
      return ConnectionPolicy.of(SharedSecret.read(Path.of(file)));
    } catch (IOException e) {
      throw new IllegalArgumentException("--secret-file " + file + " cannot be read: " + e);
    }
  }

  /** {@code --flag value} pairs by flag (an odd count is the caller's usage error). */
  static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      options.put(args[i], args[i + 1]);
    }
    return options;
  }

  /** The control's address: the only one of {@code --control}. */
  private static InetSocketAddress own(List<InetSocketAddress> controls) {
    if (controls.size() != 1) {
      throw new IllegalArgumentException("a control's --control is the one address it listens"
          + " on, not " + controls.size() + " addresses");
    }
    return controls.get(0);
  }

  /**
   * The control on the coordinator's store: a standby until the store's election makes it the
   * leader, then the control from the stored state, until its standard input closes. Losing the
   * election stops the process ({@link ReplicaNode#EXIT_DEPOSED}).
   */
  /** How many of the first table's three options are given (one must be). */
  private static int tables(Map<String, String> options) {
    return (int) java.util.stream.Stream.of("--partitions", "--split-keys", "--tokens")
        .filter(o -> options.get(o) != null).count();
  }

  /**
   * The first table's scheme: hash slots of {@code --partitions}, key ranges of {@code
   * --split-keys} or a ring of {@code --tokens}.
   *
   * @throws IllegalArgumentException naming the option and what is wrong with it
   */
  static PartitionScheme scheme(Map<String, String> options) {
    String keys = options.get("--split-keys");
    String tokens = options.get("--tokens");
    try {
      if (keys != null) {
        List<byte[]> splits = new ArrayList<>();
        for (String k : keys.split(",")) {
          splits.add(java.util.HexFormat.of().parseHex(k.trim()));
        }
        return KeyRanges.of(splits);
      }
      if (tokens != null) {
        return TokenRanges.of(java.util.Arrays.stream(tokens.split(","))
            .mapToLong(t -> Long.parseLong(t.trim())).toArray());
      }
      return new HashSlots(Integer.parseInt(options.get("--partitions")), KeyHash.MURMUR3_128);
    } catch (IllegalArgumentException e) {
      String option = keys != null ? "--split-keys" : tokens != null ? "--tokens" : "--partitions";
      throw new IllegalArgumentException(option + " " + options.get(option) + ": "
          + e.getMessage(), e);
    }
  }

  private static void runStoredControl(Map<String, String> options, Consumer<String> log)
      throws IOException, InterruptedException {
    String name = options.get("--name");
    List<InetSocketAddress> nodes;
    InetSocketAddress address;
    Timing timing;
    PartitionScheme scheme;
    int replicas;
    Optional<Placement> placement;
    ConnectionPolicy policy;
    try {
      nodes = addresses(options.get("--nodes"));
      address = own(addresses(options.get("--control")));
      policy = policy(options.get("--secret-file"));
      Admission.requireSecretOffLoopback("control " + name, address, policy.secret());
      timing = timing(options.get("--timing"));
      scheme = scheme(options);
      replicas = Integer.parseInt(options.get("--replicas"));
      placement = placement(options.get("--strategy"), replicas);
    } catch (IllegalArgumentException e) {
      System.err.println("ReplicaNodeMain: " + e.getMessage());
      System.exit(2);
      return;
    }
    MetadataStore store = openStore(options, "ReplicaNodeMain", log);
    VersionedValues values = (VersionedValues) store;
    AtomicReference<ReplicaNode> running = new AtomicReference<>();
    CountDownLatch elected = new CountDownLatch(1);
    System.out.println("REPLICA STANDBY " + name);
    System.out.flush();
    Leadership leadership = store.campaign(name, elected::countDown, () -> ReplicaNode.fail(log,
        "control " + name + ": lost the leadership in " + store.describe(),
        ReplicaNode.EXIT_DEPOSED));
    Thread lead = new Thread(() -> {
      try {
        elected.await();
        log.accept("control " + name + ": elected in " + store.describe());
        ReplicaNode n = ReplicaNode.control(nodes, address, values, store.describe(),
            scheme, replicas, placement, timing, policy, log);
        running.set(n);
        listening(n, true);
      } catch (IOException | MetadataStoreException e) {
        StartFailure failure = startFailure(name, e);
        ReplicaNode.fail(log, failure.why(), failure.status());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "lead");
    lead.setDaemon(true);
    lead.start();
    readCommands(running::get, log);
    // stepping down first: a store closed under a leadership reports it lost, which stops the
    // process as deposed
    leadership.close();
    Optional.ofNullable(running.get()).ifPresent(ReplicaNode::close);
    store.close();
    System.exit(0);
  }

  /** Why an elected control on the store did not start, and the status it exits with. */
  record StartFailure(String why, int status) {}

  /**
   * What stops the elected control {@code name} that could not start on {@code e}: another
   * control succeeded it while it opened its state ({@link StoredControlState.Deposed}): deposed,
   * {@link ReplicaNode#EXIT_DEPOSED}, as any other deposition; the stored value is no control's
   * state: 1, as a damaged log; otherwise (the store cannot be reached, the address not bound)
   * {@link ReplicaNode#EXIT_IO}.
   */
  static StartFailure startFailure(String name, Exception e) {
    if (e instanceof StoredControlState.Deposed) {
      return new StartFailure("control " + name + ": " + e.getMessage(),
          ReplicaNode.EXIT_DEPOSED);
    }
    if (e instanceof Codec.Malformed) {
      return new StartFailure("refusing to start: " + e.getMessage(), 1);
    }
    return new StartFailure("cannot start: " + e.getMessage(), ReplicaNode.EXIT_IO);
  }

  /**
   * Opens the store of {@code --store} (and {@code --store-prefix}), which a control keeps its
   * state in, so it must have {@link VersionedValues}; otherwise the process exits, its line
   * naming {@code program}: 2 for a bad {@code --store} or a store without them, 74 for a store
   * that cannot be reached.
   */
  static MetadataStore openStore(Map<String, String> options, String program,
      Consumer<String> log) {
    MetadataStore store;
    try {
      store = store(options.get("--store"), options.getOrDefault("--store-prefix",
          STORE_PREFIX));
    } catch (IllegalArgumentException e) {
      System.err.println(program + ": " + e.getMessage());
      System.exit(2);
      throw e;
    } catch (MetadataStoreException e) {
      log.accept("cannot start: " + e.getMessage());
      System.exit(ReplicaNode.EXIT_IO);
      throw e;
    }
    if (!(store instanceof VersionedValues)) {
      System.err.println(program + ": " + store.describe()
          + " keeps no versioned values: a control cannot keep its state in it");
      System.exit(2);
    }
    return store;
  }

  /** The store named by {@code --store}: {@code etcd:URL,...} or {@code file:PATH}. */
  static MetadataStore store(String spec, String prefix) {
    if (spec.startsWith("etcd:")) {
      return EtcdMetadataStores.builder()
          .endpoints(List.of(spec.substring("etcd:".length()).split(",")))
          .prefix(prefix).build();
    }
    if (spec.startsWith("file:")) {
      return MetadataStores.embedded(Path.of(spec.substring("file:".length())));
    }
    throw new IllegalArgumentException("--store " + spec + " is neither etcd:URL,... nor"
        + " file:PATH");
  }

  /** Tells the parent where {@code node} listens; a control also says once it first settles. */
  static void listening(ReplicaNode node, boolean control) {
    InetSocketAddress at = node.address();
    System.out.println("REPLICA LISTENING " + at.getHostString() + ":" + at.getPort());
    System.out.flush();
    if (control) {
      try {
        node.announceJoins(line -> {
          System.out.println(line);
          System.out.flush();
        });
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      Thread settled = new Thread(() -> {
        try {
          node.awaitSettled();
          System.out.println("REPLICA SETTLED");
          System.out.flush();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "settled");
      settled.setDaemon(true);
      settled.start();
    }
  }

  /**
   * The control's standard input until it closes: a {@link ControlCommand} a line, answered on
   * standard output; a line that is not one gets an error line on standard error and the control
   * goes on. While {@code control} gives null (a standby), every command is refused.
   */
  private static void readCommands(Supplier<ReplicaNode> control, Consumer<String> log)
      throws IOException, InterruptedException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    Consumer<String> answer = line -> {
      System.out.println(line);
      System.out.flush();
    };
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      try {
        Optional<ControlCommand> c = ControlCommand.parse(line);
        if (c.isEmpty()) {
          continue;
        }
        ReplicaNode leading = control.get();
        if (leading != null) {
          leading.command(c.get(), answer);
        } else {
          answer.accept(c.get().refusal("this control is a standby"));
        }
      } catch (IllegalArgumentException e) {
        log.accept("control: standard input: " + e.getMessage());
      }
    }
  }

  /**
   * The placement of the strategy {@code name}, empty without a name (the control's own rule).
   *
   * @throws IllegalArgumentException for an unknown strategy (with the known ones), one whose
   *     partitions are not hash slots, or more replicas than strategies place
   */
  static Optional<Placement> placement(String name, int replicas) {
    if (name == null) {
      return Optional.empty();
    }
    if (replicas > Partitioner.MAX_REPLICAS) {
      throw new IllegalArgumentException("--strategy " + name + " places at most "
          + Partitioner.MAX_REPLICAS + " replicas: --replicas " + replicas);
    }
    Partitioners strategies = Partitioners.load(ReplicaNodeMain.class.getClassLoader());
    return Optional.of(StrategyPlacement.of(strategies.provider(name).orElseThrow(() ->
        new IllegalArgumentException("unknown --strategy " + name + "; known: "
            + String.join(", ", strategies.names())))));
  }

  static List<InetSocketAddress> addresses(String list) {
    List<InetSocketAddress> out = new ArrayList<>();
    for (String a : list.split(",")) {
      int colon = a.lastIndexOf(':');
      if (colon < 1) {
        throw new IllegalArgumentException("not host:port: " + a);
      }
      out.add(new InetSocketAddress(a.substring(0, colon).trim(),
          Integer.parseInt(a.substring(colon + 1).trim())));
    }
    return out;
  }

  static long compactBytes(String text) {
    if (text == null) {
      return COMPACT_BYTES;
    }
    long bytes;
    try {
      bytes = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      bytes = 0;
    }
    if (bytes < 1) {
      throw new IllegalArgumentException("--compact-bytes needs a positive number of bytes (how"
          + " much a node's log grows before it is compacted), not '" + text + "'");
    }
    return bytes;
  }

  static Timing timing(String text) {
    if (text == null) {
      return TIMING;
    }
    String[] p = text.split(",");
    if (p.length != 4) {
      throw new IllegalArgumentException("--timing needs four numbers of milliseconds: " + text);
    }
    return new Timing(Long.parseLong(p[0].trim()), Long.parseLong(p[1].trim()),
        Long.parseLong(p[2].trim()), Long.parseLong(p[3].trim()));
  }
}
