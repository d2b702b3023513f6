package io.partkit.verification.checker;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Seeded random histories of a simulated concurrent object: processes invoke operations, each
 * takes effect atomically at a random moment (or never) before it completes, and completes
 * :ok, :fail (it did not take effect) or :info (the process crashes and a new one takes its
 * place). Then, in about a third of histories, one :ok result is corrupted or one :fail turned
 * into an :ok, so both verdicts occur.
 */
final class RandomHistories {
  private RandomHistories() {}

  /** The real object the simulation runs against. */
  interface Sim {
    /** A random invocation: function and argument. */
    Object[] invoke(Random rnd);

    /**
     * Executes (f, arg) on the real object: returns the result, or FAILED when it has no effect.
     */
    Object execute(String f, Object arg);

    /** A plausible wrong result for a corrupted :ok. */
    Object corrupt(String f, Object arg, Object result, Random rnd);
  }

  static final Object FAILED = new Object();

  static History generate(long seed, Sim sim, int maxOps) {
    Random rnd = new Random(seed);
    int processes = 2 + rnd.nextInt(3);
    int total = 2 + rnd.nextInt(maxOps - 1);
    List<Op> ops = new ArrayList<>();
    long[] procId = new long[processes];
    long nextId = processes;
    for (int p = 0; p < processes; p++) {
      procId[p] = p;
    }
    // per slot: f, arg, effected?, result
    Map<Integer, Object[]> pending = new LinkedHashMap<>();
    int invoked = 0;
    while (invoked < total || !pending.isEmpty()) {
      int slot = rnd.nextInt(processes);
      Object[] st = pending.get(slot);
      if (st == null) {
        if (invoked >= total) {
          continue;
        }
        Object[] inv = sim.invoke(rnd);
        ops.add(Op.of(ops.size(), procId[slot], OpType.INVOKE, (String) inv[0], inv[1]));
        pending.put(slot, new Object[] {inv[0], inv[1], Boolean.FALSE, null});
        invoked++;
      } else if (!(Boolean) st[2] && rnd.nextInt(3) != 0) {
        st[3] = sim.execute((String) st[0], st[1]); // the linearization point
        st[2] = Boolean.TRUE;
      } else {
        String f = (String) st[0];
        int r = rnd.nextInt(10);
        if (r == 0) { // crash: outcome unknown, the process is replaced
          ops.add(Op.of(ops.size(), procId[slot], OpType.INFO, f, null));
          procId[slot] = nextId++;
        } else if (!(Boolean) st[2] || st[3] == FAILED) {
          if (!(Boolean) st[2] && rnd.nextBoolean()) {
            continue; // not yet taken effect: let it happen first
          }
          ops.add(Op.of(ops.size(), procId[slot], OpType.FAIL, f, st[1]));
        } else {
          ops.add(Op.of(ops.size(), procId[slot], OpType.OK, f, st[3]));
        }
        pending.remove(slot);
      }
    }
    if (rnd.nextInt(3) == 0) {
      List<Integer> completions = new ArrayList<>();
      for (int i = 0; i < ops.size(); i++) {
        if (ops.get(i).type() == OpType.OK || ops.get(i).type() == OpType.FAIL) {
          completions.add(i);
        }
      }
      if (!completions.isEmpty()) {
        int i = completions.get(rnd.nextInt(completions.size()));
        Op op = ops.get(i);
        if (op.type() == OpType.FAIL) { // claim that an operation which had no effect succeeded
          ops.set(i, new Op(op.index(), op.process(), OpType.OK, op.f(), op.value(), null, -1, 0));
        } else {
          ops.set(i, op.withValue(sim.corrupt(op.f(), null, op.value(), rnd)));
        }
      }
    }
    return History.of("seed " + seed, ops);
  }

  static Sim register(boolean cas) {
    return new Sim() {
      Object value = null;

      @Override
      public Object[] invoke(Random rnd) {
        int k = rnd.nextInt(cas ? 3 : 2);
        if (k == 0) {
          return new Object[] {"read", null};
        }
        if (k == 1) {
          return new Object[] {"write", (long) rnd.nextInt(3)};
        }
        return new Object[] {"cas", List.of((long) rnd.nextInt(3), (long) rnd.nextInt(3))};
      }

      @Override
      public Object execute(String f, Object arg) {
        switch (f) {
          case "read": return value;
          case "write": value = arg; return arg;
          default:
            List<?> p = (List<?>) arg;
            if (java.util.Objects.equals(value, p.get(0))) {
              value = p.get(1);
              return arg;
            }
            return FAILED;
        }
      }

      @Override
      public Object corrupt(String f, Object arg, Object result, Random rnd) {
        if (f.equals("cas")) {
          return List.of((long) rnd.nextInt(3), (long) rnd.nextInt(3));
        }
        int v = rnd.nextInt(4);
        return v == 3 ? null : (Object) (long) v;
      }
    };
  }

  static Sim mutex() {
    return new Sim() {
      boolean held;

      @Override
      public Object[] invoke(Random rnd) {
        return new Object[] {rnd.nextBoolean() ? "acquire" : "release", null};
      }

      @Override
      public Object execute(String f, Object arg) {
        if (f.equals("acquire") == held) {
          return FAILED;
        }
        held = !held;
        return null;
      }

      @Override
      public Object corrupt(String f, Object arg, Object result, Random rnd) {
        return null; // mutex ops carry no result: its corruptions turn a :fail into an :ok
      }
    };
  }

  static Sim set() {
    return new Sim() {
      final Set<Object> items = new HashSet<>();

      @Override
      public Object[] invoke(Random rnd) {
        return rnd.nextBoolean()
            ? new Object[] {"add", (long) rnd.nextInt(4)}
            : new Object[] {"read", null};
      }

      @Override
      public Object execute(String f, Object arg) {
        if (f.equals("add")) {
          items.add(arg);
          return arg;
        }
        return Set.copyOf(items);
      }

      @Override
      public Object corrupt(String f, Object arg, Object result, Random rnd) {
        if (f.equals("add")) {
          return result;
        }
        Set<Object> s = new HashSet<>();
        for (int i = 0; i < 4; i++) {
          if (rnd.nextBoolean()) {
            s.add((long) i);
          }
        }
        return Set.copyOf(s);
      }
    };
  }

  static Sim queue(boolean fifo) {
    return new Sim() {
      final List<Object> items = new ArrayList<>();
      long next;

      @Override
      public Object[] invoke(Random rnd) {
        return rnd.nextInt(5) < 3
            ? new Object[] {"enqueue", (next++) % 3}
            : new Object[] {"dequeue", null};
      }

      @Override
      public Object execute(String f, Object arg) {
        if (f.equals("enqueue")) {
          items.add(arg);
          return arg;
        }
        if (items.isEmpty()) {
          return null;
        }
        // an unordered queue may hand out any element: take a pseudo-random one
        int i = fifo ? 0 : (int) (next % items.size());
        return items.remove(i);
      }

      @Override
      public Object corrupt(String f, Object arg, Object result, Random rnd) {
        int v = rnd.nextInt(4);
        return f.equals("enqueue") ? result : (v == 3 ? null : (Object) (long) v);
      }
    };
  }

  /** Two registers :x and :y changed by transactions of one or two reads and writes. */
  static Sim multiRegister() {
    return new Sim() {
      final Map<Object, Object> regs = new java.util.HashMap<>();

      @Override
      public Object[] invoke(Random rnd) {
        List<Object> txn = new ArrayList<>();
        for (int i = 1 + rnd.nextInt(2); i > 0; i--) {
          String k = rnd.nextBoolean() ? "x" : "y";
          txn.add(
              rnd.nextBoolean()
                  ? java.util.Arrays.asList("read", k, null)
                  : List.of("write", k, (long) rnd.nextInt(3)));
        }
        return new Object[] {"txn", List.copyOf(txn)};
      }

      @Override
      public Object execute(String f, Object arg) {
        List<Object> done = new ArrayList<>();
        for (Object o : (List<?>) arg) {
          List<?> mop = (List<?>) o;
          if (mop.get(0).equals("read")) {
            done.add(java.util.Arrays.asList("read", mop.get(1), regs.get(mop.get(1))));
          } else {
            regs.put(mop.get(1), mop.get(2));
            done.add(mop);
          }
        }
        return java.util.Collections.unmodifiableList(done);
      }

      @Override
      public Object corrupt(String f, Object arg, Object result, Random rnd) {
        List<Object> l = new ArrayList<>((List<?>) result);
        int i = rnd.nextInt(l.size());
        List<?> mop = (List<?>) l.get(i);
        int r = rnd.nextInt(4);
        // a read of nil: a wildcard for Knossos, "never written" when strict
        Long v = r == 3 ? null : (long) r;
        l.set(
            i,
            mop.get(0).equals("read")
                ? java.util.Arrays.asList("read", mop.get(1), v)
                : java.util.Arrays.asList("write", mop.get(1), v == null ? 0L : v));
        return java.util.Collections.unmodifiableList(l);
      }
    };
  }
}
