package io.partkit.bench.live;

import io.partkit.bench.LivePrediction;
import io.partkit.bench.LiveResult.LiveRow;
import io.partkit.bench.LiveResult.LiveSeries;
import io.partkit.bench.LiveResult.Mark;
import io.partkit.bench.Progress;
import io.partkit.bench.live.LiveSubjects.LiveSubject;
import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.system.Capability;
import io.partkit.harness.system.Capability.Rebalancing;
import io.partkit.harness.system.Capability.Received;
import io.partkit.harness.system.DataClient;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.SystemContext;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.SystemUnderTest;
import io.partkit.harness.system.Systems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One subject's live run: a cluster of six nodes whose last one leaves at once (the spare), the
 * preload, the client load, then a join of the spare, a graceful leave and a kill, each measured
 * from the steady window before it to the moment the system says its rebalance is complete.
 */
final class SubjectRun {

  /** The events, in the order they run. */
  static final List<String> EVENTS = List.of("join", "leave", "kill");
  /** Nodes started: five members and the spare that joins. */
  static final int NODES = 6;

  /**
   * Writers of the preload: a node that syncs its log once for all the writes waiting (group
   * commit) takes more of them per sync the more write at once.
   */
  private static final int PRELOAD_THREADS = 16;
  private static final int PRELOAD_BATCH = 500;
  private static final int PRELOAD_TRIES = 3;
  private static final long POLL_MILLIS = 200;

  private final LiveSubject subject;
  private final LiveOptions options;
  private final Progress progress;

  SubjectRun(LiveSubject subject, LiveOptions options, Progress progress) {
    this.subject = subject;
    this.options = options;
    this.progress = progress;
  }

  /** The rows of this subject's events and its series (empty when nothing ran). */
  record Outcome(List<LiveRow> rows, Optional<LiveSeries> series) {}

  Outcome run() {
    SystemProvider provider;
    OptionValues values;
    try {
      provider = Systems.load().provider(subject.system());
      values = provider.options().check(subject.options(), NODES);
    } catch (RuntimeException e) {
      return notMeasured(oneLine(e));
    }
    Path dir = options.dir().resolve(subject.system() + "-" + subject.placement());
    try {
      Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      return notMeasured("cannot create " + dir + ": " + e.getMessage());
    }
    SystemUnderTest system = provider.create();
    if (!(system instanceof Rebalancing rebalancing)
        || !(system instanceof Capability.Membership membership)) {
      system.close();
      return notMeasured(subject.system() + " does not report its rebalances (no rebalancing "
          + "and membership capabilities)");
    }
    try (NodeRuntime runtime = Runtimes.load().create(options.runtime(), dir); system) {
      progress.note(subject.label() + ": starting " + NODES + " nodes");
      system.start(new SystemContext(runtime, dir, NODES, options.seed(), values));
      return measure(system, rebalancing, membership);
    } catch (RuntimeException e) {
      return notMeasured(oneLine(e));
    }
  }

  private Outcome measure(SystemUnderTest system, Rebalancing rebalancing,
      Capability.Membership membership) {
    List<String> nodes = system.nodes();
    String spare = nodes.get(nodes.size() - 1);
    String leaver = nodes.get(1);
    String victim = nodes.get(2);
    membership.leave(spare);
    awaitRebalanced(rebalancing, "the spare's leave");
    List<List<String>> memberships = memberships(nodes, spare, leaver, victim);
    double[] predicted = predictions(rebalancing, memberships);
    progress.note(subject.label() + ": preloading " + options.keys() + " keys");
    long preloadStarted = System.nanoTime();
    preload(rebalancing);
    progress.note(String.format(java.util.Locale.ROOT, "%s: preloaded in %.1f s",
        subject.label(), (System.nanoTime() - preloadStarted) / 1e9));
    List<Measured> measured = new ArrayList<>();
    List<LiveRow> rows = new ArrayList<>(); // the events that could not be measured
    List<Mark> marks = new ArrayList<>();
    long end;
    ClientLoad.Operations operations;
    try (ClientLoad load = new ClientLoad(rebalancing::openDataClient, options.workers(),
        options.rate(), options.keys(), LiveOptions.VALUE_BYTES, options.seed())) {
      for (int e = 0; e < EVENTS.size(); e++) {
        String event = EVENTS.get(e);
        try {
          long steadyFrom = load.now();
          pause(options.steady().toMillis());
          Map<String, Received> before = rebalancing.received();
          long start = load.now();
          marks.add(new Mark(start / 1e9, event));
          progress.note(subject.label() + ": " + event);
          String note = switch (event) {
            case "join" -> {
              membership.join(spare);
              yield "";
            }
            case "leave" -> {
              membership.leave(leaver);
              yield "";
            }
            default -> rebalancing.crash(victim);
          };
          awaitRebalanced(rebalancing, event);
          long done = load.now();
          marks.add(new Mark(done / 1e9, "rebalanced"));
          Map<String, Received> after = rebalancing.received();
          measured.add(new Measured(event, predicted[e + 2], steadyFrom, start, done,
              Received.since(before, after), note));
        } catch (RuntimeException failure) {
          // the cluster is in no known state: the events after this one are not run either
          for (int rest = e; rest < EVENTS.size(); rest++) {
            rows.add(LiveRow.notMeasured(subject.system(), subject.placement(),
                EVENTS.get(rest), options.keys(), rebalancing.copies(), predicted[rest + 2],
                (rest == e ? "" : "after the " + event + " failed: ") + oneLine(failure)));
          }
          progress.note(subject.label() + ": " + event + " failed: " + oneLine(failure));
          break;
        }
      }
      pause(options.steady().toMillis()); // the steady state after the last event, on the chart
      end = load.now();
      load.close();
      operations = load.operations();
    }
    // the clients' figures once every operation has ended: one that a stall held past the
    // event still counts in the window it was scheduled in
    List<LiveRow> all = new ArrayList<>();
    for (Measured m : measured) {
      all.add(new LiveRow(subject.system(), subject.placement(), m.event(), options.keys(),
          rebalancing.copies(), m.predicted(),
          m.moved().keys() / ((double) options.keys() * rebalancing.copies()),
          m.moved().bytes(), m.moved().partitions(), (m.done() - m.start()) / 1_000_000,
          operations.window(m.steadyFrom(), m.start()), operations.window(m.start(), m.done()),
          true, m.note()));
    }
    all.addAll(rows);
    rows = all;
    double[][] perSecond = operations.perSecond(end);
    long[] errors = new long[perSecond[2].length];
    for (int i = 0; i < errors.length; i++) {
      errors[i] = (long) perSecond[2][i];
    }
    return new Outcome(rows, Optional.of(new LiveSeries(subject.system(), subject.placement(),
        perSecond[0], perSecond[1], errors, marks)));
  }

  /** One event as it ran: its windows on the load's clock and what the nodes received. */
  private record Measured(String event, double predicted, long steadyFrom, long start,
      long done, Received moved, String note) {}

  /** The memberships of the run: all six, the spare gone, the join, the leave, the kill. */
  static List<List<String>> memberships(List<String> nodes, String spare, String leaver,
      String victim) {
    List<List<String>> steps = new ArrayList<>();
    steps.add(List.copyOf(nodes));
    steps.add(without(nodes, Set.of(spare)));
    steps.add(List.copyOf(nodes));
    steps.add(without(nodes, Set.of(leaver)));
    steps.add(without(nodes, Set.of(leaver, victim)));
    return steps;
  }

  private static List<String> without(List<String> nodes, Set<String> gone) {
    return nodes.stream().filter(n -> !gone.contains(n)).toList();
  }

  private double[] predictions(Rebalancing system, List<List<String>> memberships) {
    int partitions = system.partitions().orElse(subject.partitions());
    return LivePrediction.of(subject.prediction(), partitions, system.copies())
        .copiesMovedShares(memberships);
  }

  private void awaitRebalanced(Rebalancing system, String what) {
    long deadline = System.nanoTime() + options.rebalanceTimeout().toNanos();
    Optional<String> busy = system.rebalancing();
    while (busy.isPresent()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(subject.label() + ": the rebalance after " + what
            + " did not complete within " + options.rebalanceTimeout().toSeconds() + " s: "
            + busy.get());
      }
      pause(POLL_MILLIS); // polling the system's own answer: it has no completion callback
      busy = system.rebalancing();
    }
  }

  private void preload(Rebalancing system) {
    ExecutorService pool = Executors.newFixedThreadPool(PRELOAD_THREADS);
    try {
      List<Future<?>> batches = new ArrayList<>();
      int perThread = (options.keys() + PRELOAD_THREADS - 1) / PRELOAD_THREADS;
      for (int t = 0; t < PRELOAD_THREADS; t++) {
        int from = t * perThread;
        int to = Math.min(options.keys(), from + perThread);
        long seed = options.seed() + t;
        batches.add(pool.submit(() -> {
          loadRange(system, from, to, seed);
          return null;
        }));
      }
      for (Future<?> f : batches) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while preloading", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(subject.label() + ": preload failed: "
          + oneLine(e.getCause()), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  private static void loadRange(Rebalancing system, int from, int to, long seed)
      throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    try (DataClient client = system.openDataClient()) {
      for (int start = from; start < to; start += PRELOAD_BATCH) {
        Map<Long, byte[]> batch = new HashMap<>();
        for (int k = start; k < Math.min(to, start + PRELOAD_BATCH); k++) {
          byte[] value = new byte[LiveOptions.VALUE_BYTES];
          random.nextBytes(value);
          batch.put(LiveKeys.key(k), value);
        }
        for (int attempt = 1; ; attempt++) {
          try {
            client.putAll(batch);
            break;
          } catch (Exception e) {
            if (attempt == PRELOAD_TRIES) {
              throw e;
            }
          }
        }
      }
    }
  }

  private Outcome notMeasured(String why) {
    progress.note(subject.label() + ": not measured: " + why);
    double[] predicted = new double[EVENTS.size() + 2];
    try {
      List<String> nodes = new ArrayList<>();
      for (int i = 1; i <= NODES; i++) {
        nodes.add("n" + i);
      }
      predicted = LivePrediction.of(subject.prediction(), subject.partitions(),
          LiveSubjects.COPIES).copiesMovedShares(memberships(nodes, "n6", "n2", "n3"));
    } catch (RuntimeException | LinkageError e) {
      java.util.Arrays.fill(predicted, Double.NaN);
    }
    List<LiveRow> rows = new ArrayList<>();
    for (int e = 0; e < EVENTS.size(); e++) {
      rows.add(LiveRow.notMeasured(subject.system(), subject.placement(), EVENTS.get(e),
          options.keys(), LiveSubjects.COPIES, predicted[e + 2], why));
    }
    return new Outcome(rows, Optional.empty());
  }

  private static void pause(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static String oneLine(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return message.replace('\n', ' ').replaceAll("\\s+", " ");
  }
}
