package io.partkit.verification.checker;

import io.partkit.verification.history.Op;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Step;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/*
 * Design. Decides a key whose :ok operations follow one another in real time (each :ok
 * operation's call comes after the previous one's return: concurrency 1 among the :ok ones, as
 * in a register workload at concurrency 1 whose crashed clients are replaced by fresh processes)
 * and whose :info operations are read-only or have an effect the model's hooks name completely
 * ("legal everywhere, leaves t": blind; "legal in s only, leaves t": guarded, see WglSearch's
 * effect classes). Such keys with hundreds of crashed operations are what the search cannot
 * refute: to prove an invalid one invalid it must try every combination of crashed operations
 * the earlier :ok operations could have used.
 *
 * Here the :ok operations are linearized in their one possible order, and between two of them
 * (the gap before :ok operation k) any run of unused crashed operations invoked before k's return
 * may go (an :info operation can be linearized anywhere after its invocation, and k's point can
 * be just before its return, so every such operation fits in the gap, in any order). Crashed
 * reads are left out (an :info operation may never happen; a read changes nothing). The decider
 * keeps the set of configurations (state, how many of each effect class are used) reachable
 * after each :ok operation, pruned by dominance, and the history is linearizable iff the set
 * never becomes empty. Exact because of three facts:
 *
 * (1) Members of one effect class step alike in every state, and every member invoked before now
 *     can go anywhere from now on; so what a configuration leaves for the future is, per class,
 *     the number of invoked members it has not used (the members not yet invoked are the same
 *     for all). Used members are taken in invocation order (any unused invoked one would do).
 * (2) Dominance: configuration B covers A when they have the same state and B's unused invoked
 *     operations can stand in for A's one for one: a blind operation leaving t can stand in for
 *     a guarded one leaving t (it is legal wherever that one is, and leaves the same state), so
 *     per result state t, with a and b the unused counts, b(blind t) - a(blind t) must be at
 *     least the sum over guarded classes (s, t) of max(0, a(s, t) - b(s, t)). Every completion of
 *     A is then a completion of B with the stand-ins, through the same states; A is dropped.
 * (3) Before an :ok operation that ignores the state, no run is needed (the run can go after it,
 *     where more is available, if the operation keeps the state, or be left out if it overwrites
 *     it); before one legal in one state only, a configuration already in that state covers every
 *     run back to it (same state, fewer used). Otherwise all runs are explored, pruned by (2);
 *     a run that comes back to a state with more used is covered, so the exploration ends.
 *
 * The decider gives up (null: the search goes on) when the key is not of that shape, when the
 * configurations kept exceed MAX_CONFIGS (incomparable ways of spending the crashed operations
 * multiply on long histories: on 200k operations at concurrency 1 with 0.2% crashed it gives up
 * after about a second), or when the check's limits are hit. The checker tries it once, when a
 * key's search struggles (Linearizability.STRUGGLING_STEPS_PER_EVENT). It decides either
 * verdict, with one linearization or the evidence (up to four prefixes that reach the failing :ok
 * operation's gap). Its "steps" are the configurations it built.
 */
/** An exact decision for keys whose :ok operations follow one another (see the design comment). */
final class SequentialDecider {

  /** Configurations kept, at once, after an :ok operation or within one gap's runs. */
  static final int MAX_CONFIGS = 64;

  private static final Object BLIND = new Object();

  private SequentialDecider() {}

  /** One reachable configuration; chain lists the crashed operations it used, latest first. */
  private record Config(Object state, int[] used, Used chain) {}

  /** A crashed operation used in the gap before :ok operation {@code gap} (by :ok order). */
  private record Used(int op, int gap, Used earlier) {}

  /** What a decided key came to; null from {@link #decide} when undecided. */
  record Decision(boolean valid, List<Op> linearization, Evidence evidence, long configs) {}

  /**
   * Decides the key, or returns null when it is not of the shape above, when it would keep too
   * many configurations, or when {@code limits} say stop.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static Decision decide(Model<?> model, Paired paired, SearchLimits limits) {
    return new Run((Model) model, paired, limits).decide();
  }

  private static final class Run {
    private final Model<Object> model;
    private final Op[] ops;
    private final boolean[] info;
    private final int[] events;
    private final SearchLimits limits;
    private final int[] effectClass;
    private final List<Object> classNeed = new ArrayList<>(); // BLIND or the one state
    private final List<Object> classAfter = new ArrayList<>();
    private int[][] classOps; // per class, its operations in invocation order
    private int[] resultGroup; // per class: the index of its result state among the results
    private int[] blindOfGroup; // per result state: its blind class, or -1
    private int[] invoked; // per class: members invoked so far
    private final List<Integer> okOrder = new ArrayList<>();
    private long configs;

    Run(Model<Object> model, Paired paired, SearchLimits limits) {
      this.model = model;
      this.ops = paired.ops();
      this.info = paired.info();
      this.events = paired.events();
      this.limits = limits;
      this.effectClass = new int[ops.length];
    }

    Decision decide() {
      if (!classify()) {
        return null;
      }
      List<Config> front = List.of(new Config(model.initialState(), new int[classOps.length],
          null));
      int open = -1;
      for (int e : events) {
        int op = e >>> 1;
        if ((e & 1) == 0) {
          if (info[op]) {
            if (effectClass[op] >= 0) {
              invoked[effectClass[op]]++;
            }
          } else if (open >= 0) {
            return null; // two :ok operations overlap: not this decider's shape
          } else {
            open = op;
          }
          continue;
        }
        open = -1;
        if ((okOrder.size() & 1023) == 1023 && stop()) {
          return null;
        }
        List<Config> next = step(front, op);
        if (next == null) {
          return null;
        }
        if (next.isEmpty()) {
          return new Decision(false, null, evidence(front, op), configs);
        }
        okOrder.add(op);
        front = next;
      }
      return new Decision(true, linearization(front.get(0).chain), null, configs);
    }

    private boolean stop() {
      return limits != null && (limits.cancel().get()
          || limits.clock().getAsLong() - limits.deadline() >= 0);
    }

    /** Sorts the :info operations into effect classes; false if one has no complete effect. */
    private boolean classify() {
      Map<List<Object>, Integer> classes = new HashMap<>();
      List<List<Integer>> members = new ArrayList<>();
      Arrays.fill(effectClass, -1);
      for (int e : events) {
        int i = e >>> 1;
        if ((e & 1) != 0 || !info[i] || model.isReadOnly(ops[i])) {
          continue;
        }
        Object after = model.stateAfter(ops[i]);
        Object need = model.ignoresState(ops[i]) ? BLIND : model.requiredState(ops[i]);
        if (after == Model.NOT_ONE_STATE || need == Model.NOT_ONE_STATE) {
          return false;
        }
        Integer c = classes.computeIfAbsent(Arrays.asList(need, after), k -> {
          classNeed.add(need);
          classAfter.add(after);
          members.add(new ArrayList<>());
          return members.size() - 1;
        });
        effectClass[i] = c;
        members.get(c).add(i); // in invocation order
      }
      int n = members.size();
      classOps = new int[n][];
      invoked = new int[n];
      resultGroup = new int[n];
      Map<Object, Integer> groups = new HashMap<>();
      List<Integer> blind = new ArrayList<>();
      for (int c = 0; c < n; c++) {
        classOps[c] = members.get(c).stream().mapToInt(Integer::intValue).toArray();
        Object key = classAfter.get(c) == null ? BLIND : classAfter.get(c); // BLIND stands for nil
        int g = groups.computeIfAbsent(key, k -> {
          blind.add(-1);
          return blind.size() - 1;
        });
        resultGroup[c] = g;
        if (classNeed.get(c) == BLIND) {
          blind.set(g, c);
        }
      }
      blindOfGroup = blind.stream().mapToInt(Integer::intValue).toArray();
      return true;
    }

    /** The configurations after :ok operation {@code op}, null if too many. */
    private List<Config> step(List<Config> front, int op) {
      Op o = ops[op];
      boolean ignores = model.ignoresState(o);
      Object required = model.requiredState(o);
      Map<Object, List<Config>> out = new HashMap<>();
      int kept = 0;
      for (Config c : front) {
        List<Config> starts;
        if (ignores || required != Model.NOT_ONE_STATE && Objects.equals(required, c.state)) {
          starts = List.of(c); // (3): no run needed
        } else {
          starts = runs(c, required);
          if (starts == null) {
            return null;
          }
        }
        for (Config s : starts) {
          if (model.step(s.state, o) instanceof Step.Next<Object> n) {
            configs++;
            kept += insert(out, new Config(n.state(), s.used, s.chain)) ? 1 : 0;
            if (kept > MAX_CONFIGS) {
              return null;
            }
          }
        }
      }
      List<Config> next = new ArrayList<>();
      out.values().forEach(next::addAll);
      return next;
    }

    /**
     * Every configuration reachable from {@code start} by runs of unused invoked crashed
     * operations, pruned by dominance; only those in state {@code required} when the :ok
     * operation needs one. Null if too many.
     */
    private List<Config> runs(Config start, Object required) {
      Map<Object, List<Config>> seen = new HashMap<>();
      ArrayDeque<Config> queue = new ArrayDeque<>();
      insert(seen, start);
      queue.add(start);
      int count = 1;
      while (!queue.isEmpty()) {
        Config c = queue.poll();
        if (!seen.getOrDefault(key(c.state), List.of()).contains(c)) {
          continue; // covered since it was queued
        }
        for (int k = 0; k < classOps.length; k++) {
          if (c.used[k] >= invoked[k]) {
            continue;
          }
          Object need = classNeed.get(k);
          if (need != BLIND && !Objects.equals(need, c.state)) {
            continue;
          }
          int[] used = c.used.clone();
          used[k]++;
          Config d = new Config(classAfter.get(k), used,
              new Used(classOps[k][c.used[k]], okOrder.size(), c.chain));
          configs++;
          if (insert(seen, d)) {
            queue.add(d);
            if (++count > MAX_CONFIGS) {
              return null;
            }
          }
        }
      }
      List<Config> out = new ArrayList<>();
      if (required != Model.NOT_ONE_STATE) {
        out.addAll(seen.getOrDefault(key(required), List.of()));
      } else {
        seen.values().forEach(out::addAll);
      }
      return out;
    }

    private static Object key(Object state) {
      return state == null ? BLIND : state;
    }

    /** Adds c unless covered, dropping what c covers; true if added. */
    private boolean insert(Map<Object, List<Config>> byState, Config c) {
      List<Config> same = byState.computeIfAbsent(key(c.state), k -> new ArrayList<>());
      for (Config d : same) {
        if (covers(d.used, c.used)) {
          return false;
        }
      }
      same.removeIf(d -> covers(c.used, d.used));
      same.add(c);
      return true;
    }

    /** (2): whether what b leaves unused can stand in, one for one, for what a leaves unused. */
    private boolean covers(int[] b, int[] a) {
      int groups = blindOfGroup.length;
      long[] deficit = new long[groups];
      for (int k = 0; k < b.length; k++) {
        if (classNeed.get(k) != BLIND) {
          // unused counts are invoked - used; a's minus b's is b.used - a.used
          deficit[resultGroup[k]] += Math.max(0, b[k] - a[k]);
        }
      }
      for (int g = 0; g < groups; g++) {
        int w = blindOfGroup[g];
        long spare = w < 0 ? 0 : (long) a[w] - b[w]; // b's unused blind minus a's
        if (spare < deficit[g]) {
          return false;
        }
      }
      return true;
    }

    /** Up to four prefixes that reach op's gap, and why op is not legal after them. */
    private Evidence evidence(List<Config> front, int op) {
      List<Prefix> prefixes = new ArrayList<>();
      String message = null;
      for (Config c : front.subList(0, Math.min(4, front.size()))) {
        prefixes.add(new Prefix(linearization(c.chain), c.state));
        if (message == null && model.step(c.state, ops[op]) instanceof Step.Inconsistent<?> i) {
          message = i.message();
        }
      }
      return new Evidence(ops[op], message != null ? message
          : "no order of the crashed operations lets it complete by its return", prefixes);
    }

    /** The :ok operations so far with the crashed ones of chain in their gaps. */
    private List<Op> linearization(Used chain) {
      List<Used> crashed = new ArrayList<>();
      for (Used u = chain; u != null; u = u.earlier) {
        crashed.add(u);
      }
      List<Op> out = new ArrayList<>(okOrder.size() + crashed.size());
      int j = crashed.size() - 1;
      for (int k = 0; k <= okOrder.size(); k++) {
        while (j >= 0 && crashed.get(j).gap == k) {
          out.add(ops[crashed.get(j--).op]);
        }
        if (k < okOrder.size()) {
          out.add(ops[okOrder.get(k)]);
        }
      }
      return List.copyOf(out);
    }
  }
}
