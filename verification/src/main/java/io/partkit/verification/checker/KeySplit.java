package io.partkit.verification.checker;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * A keyed history's client operations split by {@code :key} in one pass that also tests
 * well-formedness (the rules of {@link WellFormed#quickly}) and pairs each invocation with its
 * completion, so that neither a second pass over the whole history nor a per-key pairing pass
 * (with its process table) is needed: on 100 keys x 1,000 operations those three passes, each
 * touching every operation's objects again, cost as much as the searches. Keys keep the order of
 * their first operation, as {@link History#clientOpsByKey()}.
 */
final class KeySplit {
  private KeySplit() {}

  /** One key's client operations in history order, with each invocation's completion position. */
  static final class Part {
    final Object key;
    Op[] ops = new Op[16];
    int[] completionAt = new int[16]; // per invocation: its completion's position in ops, or -1
    int size;
    int invocations;

    Part(Object key) {
      this.key = key;
    }

    int add(Op op) {
      if (size == ops.length) {
        ops = Arrays.copyOf(ops, size * 2);
        completionAt = Arrays.copyOf(completionAt, size * 2);
      }
      ops[size] = op;
      completionAt[size] = -1;
      return size++;
    }

    Paired pair() {
      return Paired.of(ops, size, completionAt, invocations);
    }
  }

  /**
   * The parts, or null when the history may not be well-formed (the caller then asks
   * {@code History.validate()} for the messages). Serial.
   */
  static List<Part> ofWellFormed(List<Op> historyOps) {
    return ofWellFormed(historyOps, null);
  }

  private static final int NOT_CLIENT = 0;
  private static final int INVOKE = 1;
  private static final int COMPLETE = 2;
  private static final long NULL_KEY = -2;
  private static final long OTHER_KEY = -1; // a key that is not a Long in [0, 2^16)
  private static final int SMALL_KEYS = 1 << 16;
  private static final int PARALLEL_FROM = 1 << 14;

  /**
   * As {@link #ofWellFormed(List)}; with a pool, a long history's operations are first read into
   * arrays of numbers by two threads (each half of the history), the part of the work that waits
   * on memory: each operation, its process and its key are separate objects. The pass that pairs
   * and splits then reads only those arrays (and an operation's key or function only when it is
   * not a small Long or not the same String).
   */
  static List<Part> ofWellFormed(List<Op> historyOps, ExecutorService pool) {
    return ofWellFormed(historyOps, pool, PARALLEL_FROM);
  }

  /** As above, in parallel from {@code parallelFrom} events (tests use 0). */
  static List<Part> ofWellFormed(List<Op> historyOps, ExecutorService pool, int parallelFrom) {
    Op[] ops = historyOps.toArray(new Op[0]);
    int n = ops.length;
    Gathered g = new Gathered(n);
    if (pool != null && n >= parallelFrom) {
      Future<?> other = pool.submit(() -> g.gather(ops, n / 2, n));
      g.gather(ops, 0, n / 2);
      try {
        other.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while splitting by key", e);
      } catch (ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof RuntimeException) {
          throw (RuntimeException) c;
        }
        if (c instanceof Error) {
          throw (Error) c;
        }
        throw new IllegalStateException(c);
      }
    } else {
      g.gather(ops, 0, n);
    }
    ProcessTable open = new ProcessTable();
    int[] partOf = new int[n];
    int[] localAt = new int[n];
    int[] smallKeyPart = new int[64];
    Arrays.fill(smallKeyPart, -1);
    // other keys -> part (a process table maps any value to an int)
    ProcessTable index = new ProcessTable();
    int nullPart = -1;
    List<Part> parts = new ArrayList<>();
    byte[] kind = g.kind;
    long[] proc = g.proc;
    long[] keyNum = g.keyNum;
    Object[] fs = g.fs;
    for (int i = 0; i < n; i++) {
      int k = kind[i];
      if (k == NOT_CLIENT) {
        continue;
      }
      if (k == INVOKE) {
        if (open.put(proc[i], i) >= 0) {
          return null;
        }
        long kn = keyNum[i];
        int p;
        if (kn >= 0) {
          if (kn >= smallKeyPart.length) {
            int[] grown =
                Arrays.copyOf(smallKeyPart, Math.max((int) kn + 1, smallKeyPart.length * 2));
            Arrays.fill(grown, smallKeyPart.length, grown.length, -1);
            smallKeyPart = grown;
          }
          p = smallKeyPart[(int) kn];
        } else {
          p = kn == NULL_KEY ? nullPart : index.get(ops[i].key());
        }
        if (p < 0) {
          p = parts.size();
          if (kn >= 0) {
            smallKeyPart[(int) kn] = p;
          } else if (kn == NULL_KEY) {
            nullPart = p;
          } else {
            index.put(ops[i].key(), p);
          }
          parts.add(new Part(ops[i].key()));
        }
        Part part = parts.get(p);
        partOf[i] = p;
        localAt[i] = part.add(ops[i]);
        part.invocations++;
      } else {
        int at = open.remove(proc[i]);
        if (at < 0) {
          return null;
        }
        if (fs[at] != fs[i] && !fs[at].equals(fs[i])) {
          return null;
        }
        long ka = keyNum[at];
        long ki = keyNum[i];
        if (ka != ki || (ka == OTHER_KEY && !Objects.equals(ops[at].key(), ops[i].key()))) {
          return null;
        }
        Part part = parts.get(partOf[at]);
        int c = part.add(ops[i]); // first: add() may replace completionAt
        part.completionAt[localAt[at]] = c;
      }
    }
    return parts;
  }

  /** Per event, what the pairing pass needs, read from the operations' objects. */
  private static final class Gathered {
    final byte[] kind;
    final long[] proc;
    final long[] keyNum;
    final Object[] fs;

    Gathered(int n) {
      kind = new byte[n];
      proc = new long[n];
      keyNum = new long[n];
      fs = new Object[n];
    }

    void gather(Op[] ops, int from, int to) {
      for (int i = from; i < to; i++) {
        Op op = ops[i];
        if (!(op.process() instanceof Long)) { // not a client (Op.isClient)
          kind[i] = NOT_CLIENT;
          continue;
        }
        kind[i] = (byte) (op.type() == OpType.INVOKE ? INVOKE : COMPLETE);
        proc[i] = (Long) op.process();
        fs[i] = op.f();
        Object key = op.key();
        if (key == null) {
          keyNum[i] = NULL_KEY;
        } else if (key instanceof Long && (Long) key >= 0 && (Long) key < SMALL_KEYS) {
          keyNum[i] = (Long) key;
        } else {
          keyNum[i] = OTHER_KEY;
        }
      }
    }
  }
}
