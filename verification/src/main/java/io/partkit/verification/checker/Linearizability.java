package io.partkit.verification.checker;

import io.partkit.verification.history.History;
import io.partkit.verification.history.InvalidHistoryException;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.Values;
import io.partkit.verification.model.Model;
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

/**
 * Checks histories for linearizability.
 *
 * <p>References: Wing and Gong 1993 and Lowe 2017 for the search (see {@code WglSearch});
 * Horn and Kroening, "Faster linearizability checking via P-compositionality" (FORTE 2015), for
 * checking a history key by key: a history is linearizable iff each key's sub-history is, so keys
 * are checked independently, in parallel, and the first invalid key can stop the rest; Knossos
 * ({@code knossos.wgl}, {@code knossos.model}) for the shape of models and results.
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
   * @throws NullPointerException for a null history ({@link io.partkit.verification.history.Histories#NO_HISTORY}):
   *     bad input, while a history without operations is valid
   */
  public static Analysis check(Model<?> model, History history, CheckOptions options) {
    java.util.Objects.requireNonNull(history, io.partkit.verification.history.Histories.NO_HISTORY);
    List<String> problems = history.validate();
    if (!problems.isEmpty()) {
      throw new InvalidHistoryException(history.source(), problems);
    }
    long start = options.nanoClock().getAsLong();
    long deadline = options.timeLimit().isZero() || options.timeLimit().isNegative()
        ? Long.MAX_VALUE : start + options.timeLimit().toNanos();
    Map<Object, List<Op>> byKey = history.clientOpsByKey();
    AtomicBoolean cancel = new AtomicBoolean();
    AtomicLong steps = new AtomicLong();
    AtomicInteger done = new AtomicInteger();
    MemoryGuard memory = new MemoryGuard(options.memoryFraction());
    List<Map.Entry<Object, List<Op>>> keys = new ArrayList<>(byKey.entrySet());
    int total = keys.size();
    ProgressTicker ticker = new ProgressTicker(options, start, done, total, steps);

    // Keys share the threads in slices of search steps, round-robin, each key's slice growing by
    // a quarter every turn (slow growth: little overshoot past the steps a fast key needs). A key
    // that is quickly found invalid is found after a few slices of every key, not after the
    // hardest key ahead of it finishes (Porcupine gets that effect with a goroutine per key).
    KeyResult[] results = new KeyResult[total];
    Queue<Slice> queue = new ConcurrentLinkedQueue<>();
    for (int i = 0; i < total; i++) {
      queue.add(new Slice(i, keys.get(i).getKey(), keys.get(i).getValue()));
    }
    Runnable worker = () -> {
      Slice s;
      while ((s = queue.poll()) != null) {
        KeyResult r;
        if (cancel.get()) {
          r = new KeyResult(s.key, Verdict.UNKNOWN, "cancelled: another key was already invalid", null, null,
              s.paired().invocations(), s.search == null ? 0 : s.search.steps());
        } else {
          r = s.search(model).advance(s.key, s.paired().invocations(), total == 1 ? Long.MAX_VALUE : s.budget, deadline,
              options.nanoClock(), cancel, memory, steps, ticker);
        }
        if (r == null) {
          s.budget = Math.min(s.budget + s.budget / 4, MAX_SLICE);
          queue.add(s);
          continue;
        }
        results[s.index] = r;
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
      ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
        Thread t = new Thread(r, "partkit-check");
        t.setDaemon(true);
        return t;
      });
      try {
        List<Future<?>> futures = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
          futures.add(pool.submit(worker));
        }
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
        throw new IllegalStateException("checking " + history.source() + " failed: " + cause, cause);
      } finally {
        pool.shutdownNow();
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
    return new Analysis(verdict, cause, List.of(results), options.nanoClock().getAsLong() - start);
  }

  private static final long FIRST_SLICE = 1 << 10;
  private static final long MAX_SLICE = 1 << 20;

  /** One key's search and its place in the round-robin. */
  private static final class Slice {
    final int index;
    final Object key;
    final List<Op> ops;
    Paired paired;
    WglSearch<?> search;
    long budget = FIRST_SLICE;

    Slice(int index, Object key, List<Op> ops) {
      this.index = index;
      this.key = key;
      this.ops = ops;
    }

    Paired paired() {
      if (paired == null) {
        paired = Paired.of(ops);
      }
      return paired;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    WglSearch<?> search(Model<?> model) {
      if (search == null) {
        search = new WglSearch(model, paired());
      }
      return search;
    }
  }
}
