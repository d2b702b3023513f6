package io.partkit.verification.bench;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded cas-register histories in the style of Knossos' and Jepsen's: processes invoke reads,
 * writes of 0..4 and cas [old new]; each operation takes effect atomically at a random moment
 * between its invocation and its completion (so the history is linearizable by construction); a
 * cas whose old value does not match completes :fail; at each step of an open operation (taking
 * effect, completing), with probability {@code infoRate}, its process crashes instead (:info: it
 * took effect or not) and a fresh process takes its slot. {@link #corrupt} makes one late
 * completion impossible (a read of 99, a cas from 99: nothing ever writes 99), so the result is
 * invalid by construction.
 */
public final class CasHistories {
  private CasHistories() {}

  /** A value nobody writes. */
  static final long NEVER_WRITTEN = 99L;

  /**
   * One key's events (index and line unset): {@code ops} invocations by {@code concurrency}
   * process slots, process ids from {@code procBase}.
   */
  static List<Op> simulate(
      Random rnd, Object key, int ops, int concurrency, long procBase, double infoRate) {
    return simulate(rnd, key, ops, concurrency, procBase, infoRate, 1.0);
  }

  /**
   * As above; {@code overlap} in (0, 1] is the chance that a step goes to a random process slot
   * rather than to an open operation, so 1 interleaves freely (up to {@code concurrency} open
   * operations) and small values make operations mostly follow one another, as in Knossos'
   * memstress histories (10 processes, few overlapping operations).
   */
  static List<Op> simulate(
      Random rnd,
      Object key,
      int ops,
      int concurrency,
      long procBase,
      double infoRate,
      double overlap) {
    List<Op> out = new ArrayList<>(2 * ops + concurrency);
    long[] proc = new long[concurrency];
    for (int p = 0; p < concurrency; p++) {
      proc[p] = procBase + p;
    }
    long nextProc = procBase + concurrency;
    String[] f = new String[concurrency];
    Object[] arg = new Object[concurrency];
    // null: not yet taken effect; FAILED for a failed cas
    Object[] result = new Object[concurrency];
    boolean[] open = new boolean[concurrency];
    Object failed = new Object();
    Object register = null;
    int invoked = 0;
    int pending = 0;
    while (invoked < ops || pending > 0) {
      int p = rnd.nextInt(concurrency);
      if (pending > 0 && rnd.nextDouble() >= overlap) {
        while (!open[p]) {
          p = (p + 1) % concurrency;
        }
      }
      if (!open[p]) {
        if (invoked == ops) {
          continue;
        }
        int kind = rnd.nextInt(10);
        if (kind < 4) {
          f[p] = "read";
          arg[p] = null;
        } else if (kind < 7) {
          f[p] = "write";
          arg[p] = (long) rnd.nextInt(5);
        } else {
          f[p] = "cas";
          arg[p] = List.of((long) rnd.nextInt(5), (long) rnd.nextInt(5));
        }
        out.add(new Op(0, proc[p], OpType.INVOKE, f[p], arg[p], key, -1, 0));
        open[p] = true;
        result[p] = null;
        invoked++;
        pending++;
      } else if (rnd.nextDouble() < infoRate) { // crash, before or after taking effect
        out.add(new Op(0, proc[p], OpType.INFO, f[p], arg[p], key, -1, 0));
        proc[p] = nextProc++;
        open[p] = false;
        pending--;
      } else if (result[p] == null) {
        switch (f[p]) { // the linearization point
          case "read" -> result[p] = register == null ? NIL : register;
          case "write" -> {
            register = arg[p];
            result[p] = arg[p];
          }
          default -> {
            List<?> c = (List<?>) arg[p];
            if (c.get(0).equals(register)) {
              register = c.get(1);
              result[p] = arg[p];
            } else {
              result[p] = failed;
            }
          }
        }
      } else {
        if (result[p] == failed) {
          out.add(new Op(0, proc[p], OpType.FAIL, f[p], arg[p], key, -1, 0));
        } else {
          out.add(
              new Op(0, proc[p], OpType.OK, f[p], result[p] == NIL ? null : result[p], key, -1, 0));
        }
        open[p] = false;
        pending--;
      }
    }
    return out;
  }

  private static final Object NIL = new Object();

  /** Numbers events by position. */
  static History numbered(String source, List<Op> events) {
    List<Op> ops = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      Op o = events.get(i);
      ops.add(new Op(i, o.process(), o.type(), o.f(), o.value(), o.key(), -1, 0));
    }
    return History.of(source, ops);
  }

  /** One key, no {@code :key}: Knossos' cas-register histories. */
  public static History single(long seed, int ops, int concurrency, double infoRate) {
    return single(seed, ops, concurrency, infoRate, 1.0);
  }

  /**
   * One key with the given overlap (see
   * {@link #simulate(Random, Object, int, int, long, double, double)}).
   */
  public static History single(
      long seed, int ops, int concurrency, double infoRate, double overlap) {
    return numbered(
        "cas seed " + seed,
        simulate(new Random(seed), null, ops, concurrency, 0, infoRate, overlap));
  }

  /**
   * A harness-style history: {@code keys} keys of {@code opsPerKey} operations each, every key
   * with its own {@code concurrency} processes, the keys' events interleaved at random (as
   * Jepsen's independent checker sees them, the key in {@code :key}).
   */
  public static History keyed(
      long seed, int keys, int opsPerKey, int concurrency, double infoRate) {
    Random rnd = new Random(seed);
    List<List<Op>> perKey = new ArrayList<>(keys);
    int total = 0;
    for (int k = 0; k < keys; k++) {
      List<Op> l = simulate(rnd, (long) k, opsPerKey, concurrency, (long) k * 1_000_000, infoRate);
      perKey.add(l);
      total += l.size();
    }
    int[] at = new int[keys];
    int[] live = new int[keys];
    for (int k = 0; k < keys; k++) {
      live[k] = k;
    }
    int liveCount = keys;
    List<Op> merged = new ArrayList<>(total);
    while (liveCount > 0) {
      int j = rnd.nextInt(liveCount);
      int k = live[j];
      merged.add(perKey.get(k).get(at[k]++));
      if (at[k] == perKey.get(k).size()) {
        live[j] = live[--liveCount];
        perKey.set(k, null);
      }
    }
    return numbered("keyed seed " + seed, merged);
  }

  /** One process, one operation after another: reads, writes and cas, all :ok or :fail. */
  public static History sequential(long seed, int ops) {
    return numbered("sequential seed " + seed, simulate(new Random(seed), null, ops, 1, 0, 0));
  }

  /**
   * The history with one :ok read or cas in its last third made impossible (a read of 99, a cas
   * from 99), so it is invalid by construction; unchanged if it has no such completion there.
   */
  public static History corrupt(History h, long seed) {
    Random rnd = new Random(seed);
    List<Op> ops = new ArrayList<>(h.ops());
    List<Integer> candidates = new ArrayList<>();
    for (int i = ops.size() * 2 / 3; i < ops.size(); i++) {
      Op o = ops.get(i);
      if (o.type() == OpType.OK && (o.f().equals("read") || o.f().equals("cas"))) {
        candidates.add(i);
      }
    }
    if (candidates.isEmpty()) {
      return h;
    }
    int i = candidates.get(rnd.nextInt(candidates.size()));
    Op o = ops.get(i);
    Object v =
        o.f().equals("read") ? NEVER_WRITTEN : List.of(NEVER_WRITTEN, ((List<?>) o.value()).get(1));
    ops.set(i, o.withValue(v));
    return History.of(h.source() + " corrupted", ops);
  }
}
