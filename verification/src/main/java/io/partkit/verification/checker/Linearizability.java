package io.partkit.verification.checker;

import io.partkit.verification.history.History;
import io.partkit.verification.history.InvalidHistoryException;
import io.partkit.verification.history.Op;
import io.partkit.verification.model.Model;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
   */
  public static Analysis check(Model<?> model, History history, CheckOptions options) {
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

    List<KeyResult> results = new ArrayList<>(total);
    int threads = Math.min(options.parallelism(), total);
    if (threads <= 1) {
      for (Map.Entry<Object, List<Op>> e : keys) {
        KeyResult r = checkKey(model, e.getKey(), e.getValue(), deadline, options, cancel, memory, steps, ticker);
        results.add(r);
        done.incrementAndGet();
        ticker.maybeReport();
        if (r.verdict() == Verdict.INVALID && options.stopOnFirstInvalid()) {
          cancel.set(true);
        }
      }
    } else {
      ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
        Thread t = new Thread(r, "partkit-check");
        t.setDaemon(true);
        return t;
      });
      try {
        List<Future<KeyResult>> futures = new ArrayList<>(total);
        for (Map.Entry<Object, List<Op>> e : keys) {
          futures.add(pool.submit(() -> {
            KeyResult r = checkKey(model, e.getKey(), e.getValue(), deadline, options, cancel, memory, steps, ticker);
            done.incrementAndGet();
            if (r.verdict() == Verdict.INVALID && options.stopOnFirstInvalid()) {
              cancel.set(true);
            }
            return r;
          }));
        }
        for (Future<KeyResult> f : futures) {
          results.add(f.get());
          ticker.maybeReport();
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
          cause = (r.key() == null ? "" : "key " + io.partkit.verification.history.Values.toEdn(r.key()) + ": ") + r.cause();
          break;
        }
      }
    }
    return new Analysis(verdict, cause, results, options.nanoClock().getAsLong() - start);
  }

  private static <S> KeyResult checkKey(Model<S> model, Object key, List<Op> ops, long deadline, CheckOptions options,
      AtomicBoolean cancel, MemoryGuard memory, AtomicLong steps, ProgressTicker ticker) {
    Paired paired = Paired.of(ops);
    if (cancel.get()) {
      return new KeyResult(key, Verdict.UNKNOWN, "cancelled: another key was already invalid", null, null,
          paired.invocations(), 0);
    }
    return new WglSearch<>(model, paired).run(key, paired.invocations(), deadline, options.nanoClock(), cancel,
        memory, steps, ticker);
  }

}
