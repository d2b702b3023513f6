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
 * completion, then a pass over the same arrays that groups the events by key (a counting sort);
 * each key's {@link Paired} (operations, :info flags, call and return events) is written from
 * those arrays, into arrays of its exact size, when the key's search first needs it, so keys are
 * paired in parallel. Neither a second pass over the whole history's objects nor a per-key
 * pairing pass over each key's operations (which read each operation's object again, scattered
 * over the heap: a tenth of the keyed scale histories' samples) is needed, and no per-key list
 * grows. Keys keep the order of their first operation, as {@link History#clientOpsByKey()}.
 */
final class KeySplit {
  private KeySplit() {}

  /** One key's operations, paired as {@link Paired#of(List)} pairs them. */
  static final class Part {
    final Object key;
    int invocations; // :fail included
    int kept; // operations kept (not :fail)
    int events; // their call and return events
    int all; // its client events, :fail ones included
    Split split; // until paired: the split's arrays, and this part's events in them
    int from;
    int to;
    Paired paired;

    Part(Object key) {
      this.key = key;
    }

    /**
     * This key's Paired, written on first use (by the worker that searches the key, so that keys
     * are paired in parallel) from the split's arrays, as Paired.of would from the key's
     * operations: in history order, each invocation not completed by :fail becomes the key's next
     * operation (the completion for an :ok, whose value is the invocation's when the completion
     * has none; else the invocation as :info), with its call event, and each :ok completion its
     * return event. Reads the arrays and only the references to the operations, not the
     * operations (but for an :info operation, a new object, and an :ok without value).
     */
    Paired pair() {
      if (paired == null) {
        Op[] ops = split.ops;
        byte[] kind = split.kind;
        int[] pairOf = split.pairOf;
        int[] order = split.order;
        Op[] given = new Op[kept];
        boolean[] info = new boolean[kept];
        int[] encoded = new int[events];
        int ids = 0;
        int e = 0;
        for (int j = from; j < to; j++) {
          int i = order[j];
          int k = kind[i] & TYPE;
          if (k == INVOKE) {
            int c = pairOf[i];
            int ck = c < 0 ? INFO : kind[c] & TYPE;
            if (ck == FAIL) {
              continue;
            }
            int id = ids++;
            encoded[e++] = id << 1;
            if (ck == OK) {
              given[id] = (kind[c] & NULL_VALUE) != 0 && (kind[i] & NULL_VALUE) == 0
                  ? ops[c].withValue(ops[i].value())
                  : ops[c];
              // the completion, of this part and not reached yet, now holds its operation's id
              pairOf[c] = id;
            } else {
              Op op = ops[i];
              given[id] = new Op(op.index(), op.process(), OpType.INFO, op.f(), op.value(),
                  op.key(), op.time(), op.line());
              info[id] = true;
            }
          } else if (k == OK) {
            encoded[e++] = (pairOf[i] << 1) | 1;
          }
        }
        paired = new Paired(given, info, encoded, invocations);
        split = null;
      }
      return paired;
    }
  }

  /**
   * The first pass's arrays, which the parts are paired from; each part writes only its own
   * slots.
   */
  private static final class Split {
    final Op[] ops;
    final byte[] kind;
    final int[] pairOf;
    final int[] order; // the client events grouped by part, in history order within a part

    Split(Op[] ops, byte[] kind, int[] pairOf, int[] order) {
      this.ops = ops;
      this.kind = kind;
      this.pairOf = pairOf;
      this.order = order;
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
  private static final int OK = 2;
  private static final int FAIL = 3;
  private static final int INFO = 4;
  private static final int TYPE = 7; // the bits of the above in a kind
  private static final int NULL_VALUE = 8; // a kind's flag: the event's value is null
  private static final int NULL_KEY = -2;
  private static final int OTHER_KEY = -1; // a key that is not a Long in [0, 2^16)
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
    // an invocation: its completion's position, -1 when it has none; a completion: its invocation's
    int[] pairOf = new int[n];
    int[] smallKeyPart = new int[64];
    Arrays.fill(smallKeyPart, -1);
    // other keys -> part (a process table maps any value to an int)
    ProcessTable index = new ProcessTable();
    int nullPart = -1;
    List<Part> parts = new ArrayList<>();
    byte[] kind = g.kind;
    Object[] proc = g.proc;
    int[] keyNum = g.keyNum;
    Object[] fs = g.fs;
    for (int i = 0; i < n; i++) {
      int k = kind[i] & TYPE;
      if (k == NOT_CLIENT) {
        continue;
      }
      if (k == INVOKE) {
        if (open.put(proc[i], i) >= 0) {
          return null;
        }
        int kn = keyNum[i];
        int p;
        if (kn >= 0) {
          if (kn >= smallKeyPart.length) {
            int[] grown = Arrays.copyOf(smallKeyPart, Math.max(kn + 1, smallKeyPart.length * 2));
            Arrays.fill(grown, smallKeyPart.length, grown.length, -1);
            smallKeyPart = grown;
          }
          p = smallKeyPart[kn];
        } else {
          p = kn == NULL_KEY ? nullPart : index.get(ops[i].key());
        }
        if (p < 0) {
          p = parts.size();
          if (kn >= 0) {
            smallKeyPart[kn] = p;
          } else if (kn == NULL_KEY) {
            nullPart = p;
          } else {
            index.put(ops[i].key(), p);
          }
          parts.add(new Part(ops[i].key()));
        }
        Part part = parts.get(p);
        partOf[i] = p;
        pairOf[i] = -1;
        part.invocations++;
        part.kept++;
        part.events++;
        part.all++;
      } else {
        int at = open.remove(proc[i]);
        if (at < 0) {
          return null;
        }
        // an :info completion may name another function (History.validate() says why)
        if ((kind[i] & ~NULL_VALUE) != INFO && fs[at] != fs[i] && !fs[at].equals(fs[i])) {
          return null;
        }
        int ka = keyNum[at];
        int ki = keyNum[i];
        if (ka != ki || (ka == OTHER_KEY && !Objects.equals(ops[at].key(), ops[i].key()))) {
          return null;
        }
        int p = partOf[at];
        partOf[i] = p;
        pairOf[at] = i;
        pairOf[i] = at;
        Part part = parts.get(p);
        part.all++;
        if (k == OK) {
          part.events++; // its return
        } else if (k == FAIL) {
          part.kept--; // did not happen: neither its call nor the operation is kept
          part.events--;
        }
      }
    }
    // each part's events, in one array grouped by part (a counting sort of the client events)
    int[] at = new int[parts.size()];
    int total = 0;
    for (int p = 0; p < parts.size(); p++) {
      Part part = parts.get(p);
      part.from = total;
      at[p] = total;
      total += part.all;
      part.to = total;
    }
    int[] order = new int[total];
    for (int i = 0; i < n; i++) {
      if ((kind[i] & TYPE) != NOT_CLIENT) {
        order[at[partOf[i]]++] = i;
      }
    }
    Split split = new Split(ops, kind, pairOf, order);
    for (Part part : parts) {
      part.split = split;
    }
    return parts;
  }

  /** Per event, what the pairing pass needs, read from the operations' objects. */
  private static final class Gathered {
    final byte[] kind;
    final Object[] proc; // the process, any value (Op.isClient)
    final int[] keyNum;
    final Object[] fs;

    Gathered(int n) {
      kind = new byte[n];
      proc = new Object[n];
      keyNum = new int[n];
      fs = new Object[n];
    }

    void gather(Op[] ops, int from, int to) {
      for (int i = from; i < to; i++) {
        Op op = ops[i];
        if (!op.isClient()) {
          kind[i] = NOT_CLIENT;
          continue;
        }
        OpType t = op.type();
        int k = t == OpType.INVOKE ? INVOKE : t == OpType.OK ? OK : t == OpType.FAIL ? FAIL : INFO;
        kind[i] = (byte) (op.value() == null ? k | NULL_VALUE : k);
        proc[i] = op.process();
        fs[i] = op.f();
        Object key = op.key();
        if (key == null) {
          keyNum[i] = NULL_KEY;
        } else if (key instanceof Long && (Long) key >= 0 && (Long) key < SMALL_KEYS) {
          keyNum[i] = (int) (long) (Long) key;
        } else {
          keyNum[i] = OTHER_KEY;
        }
      }
    }
  }
}
