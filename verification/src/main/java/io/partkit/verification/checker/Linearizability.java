package io.partkit.verification.checker;

import io.partkit.verification.history.History;
import io.partkit.verification.history.InvalidHistoryException;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.Values;
import io.partkit.verification.model.Model;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;

/**
 * Checks histories for linearizability.
 *
 * <p>References: Wing and Gong 1993 and Lowe 2017 for the search (see {@code WglSearch});
 * Horn and Kroening, "Faster linearizability checking via P-compositionality" (FORTE 2015), for
 * checking a history key by key: a history is linearizable iff each key's sub-history is, so keys
 * are checked independently, in parallel, and the first invalid key can stop the rest; Knossos
 * ({@code knossos.wgl}, {@code knossos.model}) for the shape of models and results.
 *
 * <p>Two phases: the verdict (every key searched; the searches record their deepest failures
 * at a constant cost per step), then, for the invalid keys only, the evidence built from those
 * records (prefixes of operations, the model's message); the analysis reports both times. Fixed
 * cost per check: a history with one key is checked on the calling thread; with more keys, the
 * threads come from one shared pool of daemon threads, created once and kept while in use, so no
 * check pays for starting threads.
 */
public final class Linearizability {
  private Linearizability() {}

  /** Checks with {@link CheckOptions#defaults()}. */
  public static Analysis check(Model<?> model, History history) {
    return check(model, history, CheckOptions.defaults());
  }

  /**
   * Checks a history against a model. Operations of non-client processes are ignored; a history
   * whose client operations carry {@code :key}s is checked key by key, each key starting from the
   * model's initial state.
   *
   * @throws InvalidHistoryException if the history is not well-formed ({@link History#validate()})
   * @throws NullPointerException for a null history
   *     ({@link io.partkit.verification.history.Histories#NO_HISTORY}): bad input, while a history
   *     without operations is valid
   */
  public static Analysis check(Model<?> model, History history, CheckOptions options) {
    return check(model, history, options, Linearizability::reduceAfter,
        STRUGGLING_STEPS_PER_EVENT, true);
  }

  /**
   * The model's reduction ({@link Model#droppable}, e.g. a register's unobserved :info writes)
   * is applied to a key only once its search has taken {@link #reduceAfter} steps without an
   * answer: it costs a pass over the key's operations, which the many keys decided in fewer steps
   * do not need; a key that gets reduced restarts its search on the smaller history. The search's
   * cut of {@link Model#ignoresState} (an :info step only where something can observe it) is on
   * from this point at the latest (WglSearch turns it on itself after WglSearch.CUT_AFTER steps):
   * it saves most steps on hard searches around :info operations, but an easy search, which takes
   * an :info operation early and keeps it, then tries it again at every configuration. The step
   * counts behind this are in docs/checker-scale.md, "The figures behind the search's design".
   */
  static final long REDUCE_AFTER = 1024;

  /**
   * Steps per event of a key before its reduction, which is also the length of its first turn
   * among the keys. The 1,000 keys of the long crashed history (about 1,500 events each, 1%
   * crashed) are decided in 0.9 to 6 steps per event, 98% of them within 4, so most keys finish in
   * their first turn and their search's tables go to the next key. With a fixed 1,024 steps every
   * key was put back in the queue, and all 1,000 held their tables at once (about 100 MB of int
   * arrays) until their second turn; see docs/checker-scale.md, "A first turn in proportion to the
   * key".
   */
  static final long REDUCE_AFTER_STEPS_PER_EVENT = 4;

  /** The most steps before a key's reduction, however long the key (a million events). */
  static final long REDUCE_AFTER_MAX = 1 << 16;

  /** Steps before the reduction of a key of {@code events} events, and its first turn's length. */
  static long reduceAfter(long events) {
    long capped = Math.min(events, REDUCE_AFTER_MAX / REDUCE_AFTER_STEPS_PER_EVENT);
    return Math.max(REDUCE_AFTER, REDUCE_AFTER_STEPS_PER_EVENT * capped);
  }

  /**
   * As {@link #check(Model, History, CheckOptions)}, reducing keys after {@code reduceAfter} steps
   * (tests).
   */
  static Analysis check(Model<?> model, History history, CheckOptions options, long reduceAfter) {
    return check(model, history, options, reduceAfter, STRUGGLING_STEPS_PER_EVENT);
  }

  /**
   * As {@link #check(Model, History, CheckOptions, long)}, trying SequentialDecider once a reduced
   * key's search has taken {@code struggling} steps per event (tests).
   */
  static Analysis check(Model<?> model, History history, CheckOptions options, long reduceAfter,
      long struggling) {
    return check(model, history, options, reduceAfter, struggling, true);
  }

  /**
   * As above; {@code reuseCaches}: a thread's next search takes the configuration cache of its
   * last valid one (see WglSearch.reuse), which only the tests turn off, to compare.
   */
  static Analysis check(Model<?> model, History history, CheckOptions options, long reduceAfter,
      long struggling, boolean reuseCaches) {
    return check(model, history, options, events -> reduceAfter, struggling, reuseCaches);
  }

  /** As above, reducing a key of n events after {@code reduceAfter.applyAsLong(n)} steps. */
  private static Analysis check(Model<?> model, History history, CheckOptions options,
      LongUnaryOperator reduceAfter, long struggling, boolean reuseCaches) {
    java.util.Objects.requireNonNull(history, io.partkit.verification.history.Histories.NO_HISTORY);
    long start = options.nanoClock().getAsLong();
    // Without keys (most single-register histories) one pass pairs the operations and tests
    // well-formedness; with keys a one-pass test runs first. validate() builds the messages.
    Paired single = Paired.ofWellFormed(history.ops());
    boolean keyed = single == null && history.hasKeys();
    // keyed: one pass splits by key, tests well-formedness and pairs each key's operations
    List<KeySplit.Part> parts =
        keyed
            ? KeySplit.ofWellFormed(history.ops(), options.parallelism() > 1 ? Pool.THREADS : null)
            : null;
    if (single == null && parts == null) {
      List<String> problems = history.validate();
      if (!problems.isEmpty()) {
        throw new InvalidHistoryException(history.source(), problems);
      }
    }
    long deadline = deadline(start, options.timeLimit());

    AtomicBoolean cancel = new AtomicBoolean();
    AtomicLong steps = new AtomicLong();
    AtomicInteger done = new AtomicInteger();
    MemoryGuard memory = new MemoryGuard(options.memoryFraction());
    List<Map.Entry<Object, List<Op>>> keys;
    if (parts != null) {
      keys = null;
    } else if (keyed) {
      keys = new ArrayList<>(history.clientOpsByKey().entrySet());
    } else {
      List<Op> clients = single == null ? clientOps(history) : List.of(); // paired already
      boolean none = single == null ? clients.isEmpty() : single.invocations() == 0;
      keys = none ? List.of() : List.of(new AbstractMap.SimpleImmutableEntry<>(null, clients));
    }
    int total = parts != null ? parts.size() : keys.size();
    ProgressTicker ticker = new ProgressTicker(options, start, done, total, steps);

    // Keys share the threads in slices of search steps, round-robin. A key's first turn lasts
    // until its reduction (reduceAfter: four steps per event, enough for most keys); after
    // it, slices start at FIRST_SLICE and grow by a quarter every turn (slow growth: little
    // overshoot past the steps a fast key needs). A key that is quickly found invalid is found
    // after a few slices of every key, not after the hardest key ahead of it finishes (Porcupine
    // gets that effect with a goroutine per key).
    KeyResult[] results = new KeyResult[total];
    Queue<Slice> queue = new ConcurrentLinkedQueue<>();
    for (int i = 0; i < total; i++) {
      queue.add(parts != null ? new Slice(i, parts.get(i).key, null, parts.get(i))
          : new Slice(i, keys.get(i).getKey(), keys.get(i).getValue(), null));
    }
    Slice[] slices = queue.toArray(new Slice[0]);
    if (single != null && total == 1) {
      slices[0].paired = single;
    }
    SearchLimits limits =
        new SearchLimits(deadline, options.nanoClock(), cancel, memory, steps, ticker);
    Runnable worker = () -> {
      Slice s;
      ConfigCache spare = null; // the last valid key's cache, for this thread's next search
      while ((s = queue.poll()) != null) {
        KeyResult r;
        if (cancel.get()) {
          r = new KeyResult(s.key, Verdict.UNKNOWN, "cancelled: another key was already invalid",
              null, null, s.paired().invocations(), s.search == null ? 0 : s.search.steps());
        } else if (s.decided != null) {
          r = s.decided; // by UnproducedState or SequentialDecider
        } else {
          long unreducedTurn = s.reduced ? 0 : reduceAfter.applyAsLong(s.paired().events().length);
          if (!s.reduced && s.search == null && unreducedTurn <= 0) {
            s.reduce(model);
          }
          long budget = total == 1 ? Long.MAX_VALUE : s.budget;
          WglSearch<?> search = s.search(model);
          if (spare != null && search.reuse(spare)) {
            spare = null;
          }
          if (s.reduced && !s.triedSequential) { // stop where the next decider comes in
            long until = s.unproduced != null ? s.unproducedAt
                : struggling * s.paired().events().length;
            budget = Math.min(budget, Math.max(1, until - search.steps()));
          }
          WglSearch.Outcome outcome = search.advance(s.key, s.paired().invocations(),
              s.reduced ? budget : unreducedTurn, limits);
          if (!(outcome instanceof WglSearch.Decided decided)) {
            if (s.reduced) {
              s.budget = Math.min(s.budget + s.budget / 4, MAX_SLICE);
              if (s.unproduced != null && s.search.steps() >= s.unproducedAt) {
                s.decided = new KeyResult(s.key, Verdict.INVALID, null, null, s.unproduced,
                    s.paired.invocations(), s.search.steps());
              } else if (!s.triedSequential
                  && s.search.steps() >= struggling * s.paired.events().length) {
                s.trySequential(model, limits);
              }
            } else {
              // not decided in its first turn: reduce, and search again if smaller
              s.reduce(model);
            }
            queue.add(s);
            continue;
          }
          r = decided.result();
        }
        results[s.index] = r;
        if (r.verdict() != Verdict.INVALID) {
          ConfigCache spent = s.search == null ? null : s.search.spentCache();
          if (spent != null && reuseCaches) {
            spare = spent;
          }
          s.search = null; // only an invalid key's search is needed again (for its evidence)
          s.paired = null;
        }
        done.incrementAndGet();
        if (r.verdict() == Verdict.INVALID && options.stopOnFirstInvalid()) {
          cancel.set(true);
        }
        ticker.maybeReport();
      }
    };
    int threads = Math.min(options.parallelism(), total);
    if (threads <= 1) {
      worker.run();
    } else {
      // the calling thread is one of the workers: one thread fewer to hand over, none on
      // 2 keys x 1 extra
      List<Future<?>> futures = new ArrayList<>(threads - 1);
      try {
        for (int i = 1; i < threads; i++) {
          futures.add(Pool.THREADS.submit(worker));
        }
        worker.run();
        for (Future<?> f : futures) {
          f.get();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        cancel.set(true);
        throw new IllegalStateException("interrupted while checking " + history.source(), e);
      } catch (ExecutionException e) {
        cancel.set(true);
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException) {
          throw (RuntimeException) cause; // e.g. a user model that threw
        }
        if (cause instanceof Error) {
          throw (Error) cause; // e.g. OutOfMemoryError: callers tell it apart (never a verdict)
        }
        throw new IllegalStateException(
            "checking " + history.source() + " failed: " + cause, cause);
      } catch (RuntimeException e) {
        cancel.set(true); // the calling thread's worker threw: stop the others
        throw e;
      }
    }
    long verdictEnd = options.nanoClock().getAsLong();
    long end = verdictEnd;
    for (int i = 0; i < total; i++) {
      if (results[i].verdict() == Verdict.INVALID && results[i].evidence() == null) {
        results[i] = withEvidence(slices[i], results[i]);
        end = options.nanoClock().getAsLong();
      }
    }
    Verdict verdict = Verdict.VALID;
    String cause = null;
    for (KeyResult r : results) {
      verdict = verdict.worst(r.verdict());
    }
    if (verdict == Verdict.UNKNOWN) {
      for (KeyResult r : results) {
        if (r.verdict() == Verdict.UNKNOWN) {
          cause = (r.key() == null ? "" : "key " + Values.toEdn(r.key()) + ": ") + r.cause();
          break;
        }
      }
    }
    return new Analysis(
        verdict, cause, List.of(results), end - start, verdictEnd - start, end - verdictEnd);
  }

  /**
   * The clock reading at which a check started at {@code start} runs out of {@code limit}:
   * {@link Long#MAX_VALUE} (no deadline) for a zero or negative limit, and for one too long to
   * express in nanoseconds from {@code start} (Knossos' tests pass {@code {:time-limit
   * 999999999999999}} ms, some 31,000 years, where {@code Duration.toNanos} throws): saturated,
   * since no check runs that long.
   */
  static long deadline(long start, java.time.Duration limit) {
    if (limit.isZero() || limit.isNegative()) {
      return Long.MAX_VALUE;
    }
    try {
      return Math.addExact(start, limit.toNanos());
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }

  /** The invalid key's result with its evidence, built from what its search recorded. */
  private static KeyResult withEvidence(Slice s, KeyResult verdict) {
    return new KeyResult(
        verdict.key(),
        Verdict.INVALID,
        null,
        null,
        s.search.evidence(),
        verdict.operations(),
        verdict.steps());
  }

  /**
   * Daemon threads shared by all checks; idle ones end after a minute. A holder class, so that a
   * JVM whose checks all have one key (checked on the calling thread) never loads the executor's
   * classes: part of the fixed cost of a JVM's first check.
   */
  private static final class Pool {
    static final ExecutorService THREADS = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "partkit-check");
      t.setDaemon(true);
      return t;
    });
  }

  private static List<Op> clientOps(History history) {
    List<Op> clients = new ArrayList<>(history.ops().size());
    for (Op op : history.ops()) {
      if (op.isClient()) {
        clients.add(op);
      }
    }
    return clients;
  }

  /**
   * A reduced key's search that has taken this many steps per event of the key without an
   * answer is struggling (the valid crashed-operation histories of CrashedScaleTest take under
   * one step per event): SequentialDecider is tried once then. Not earlier, because on long keys
   * it costs seconds before it gives up when its configurations multiply.
   */
  static final long STRUGGLING_STEPS_PER_EVENT = 16;

  private static final long FIRST_SLICE = 1 << 10;
  private static final long MAX_SLICE = 1 << 20;

  /** One key's search and its place in the round-robin. */
  private static final class Slice {
    final int index;
    final Object key;
    final List<Op> ops;
    KeySplit.Part part; // or ops
    Paired paired;
    WglSearch<?> search;
    long budget = FIRST_SLICE;

    Slice(int index, Object key, List<Op> ops, KeySplit.Part part) {
      this.index = index;
      this.key = key;
      this.ops = ops;
      this.part = part;
    }

    Paired paired() {
      if (paired == null) {
        paired = part != null ? part.pair() : Paired.of(ops);
        part = null;
      }
      return paired;
    }

    boolean reduced;

    @SuppressWarnings({"unchecked", "rawtypes"})
    WglSearch<?> search(Model<?> model) {
      if (search == null) {
        search = new WglSearch(model, paired());
        if (reduced) {
          search.observedInfoStepsOnly();
        }
      }
      return search;
    }

    /** The key's result when UnproducedState or SequentialDecider decided it. */
    KeyResult decided;
    boolean triedSequential;
    /** UnproducedState's evidence, used once the search has reached unproducedAt steps. */
    Evidence unproduced;
    long unproducedAt;

    /**
     * Gives a key whose search is struggling (see STRUGGLING_STEPS_PER_EVENT) to
     * SequentialDecider, which decides keys whose :ok operations follow one another exactly,
     * crashed operations counted rather than ordered, while the configurations it must keep stay
     * few; otherwise the search goes on.
     */
    void trySequential(Model<?> model, SearchLimits limits) {
      triedSequential = true;
      SequentialDecider.Decision d = SequentialDecider.decide(model, paired, limits);
      if (d != null) {
        limits.steps().addAndGet(d.configs());
        decided = new KeyResult(key, d.valid() ? Verdict.VALID : Verdict.INVALID, null,
            d.linearization(), d.evidence(), paired.invocations(), search.steps() + d.configs());
      }
    }

    /**
     * Applies the model's reduction once (the search starts again when it drops operations) and
     * turns the search's cut on (see REDUCE_AFTER). A key in which an :ok operation needs a state
     * nothing before it can produce is refuted (UnproducedState) if the search has not decided it
     * within REDUCE_AFTER more steps (when it can, its evidence names the model's own reason and
     * the longest prefixes): with crashed operations pending, it could not.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    void reduce(Model<?> model) {
      reduced = true;
      Paired p = paired();
      Paired smaller = p.reduced(model);
      if (smaller != p) {
        paired = smaller;
        search = new WglSearch(model, smaller);
      }
      unproduced = UnproducedState.refute(model, paired);
      unproducedAt = (search == null ? 0 : search.steps()) + REDUCE_AFTER;
      if (search != null) {
        search.observedInfoStepsOnly();
      }
    }
  }
}
