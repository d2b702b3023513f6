package io.partkit.verification.checker;

/*
 * Design. This is the just-in-time linearization search of Wing and Gong ("Testing and
 * verifying concurrent objects", JPDC 1993) with the configuration cache of Lowe ("Testing for
 * linearizability", CCPE 2017), the algorithm Knossos' wgl.clj and Porcupine's checker.go use.
 *
 * The history of one key becomes a doubly linked list of call and return events in real-time
 * order. The search walks the list: at a call it tries to apply the operation to the model
 * state; if the model accepts and the configuration (set of linearized operations, state) is
 * new, the call and its return are unlinked ("lifted") and the walk restarts at the head. At a
 * return, the operation could not be placed before it returns in this configuration: backtrack
 * by popping the last linearized operation, relinking it and trying the next call after it.
 * The history is linearizable when every :ok operation has been lifted.
 *
 * :fail operations were removed before (they did not happen). An :info operation has a call and
 * no return, so it may be linearized at any point after its invocation, or never (Knossos'
 * semantics); the search succeeds with :info calls still in the list. Two more cuts, both exact:
 * an :info step that leaves the state unchanged is not taken (never linearizing it reaches
 * every configuration that taking it would), and the cache key hashes the linearized set
 * incrementally (Zobrist hashing, one pseudo-random 64-bit word per operation) so a configuration
 * costs one state.hashCode().
 *
 * A third cut, also exact, for models that mark read-only operations (Model.isReadOnly): when an
 * :ok read that may go next is legal in the current state, some linearization from here, if
 * there is any, takes it next (moving a state-preserving operation earlier past operations that
 * had not returned before it was invoked keeps both the real-time order and every state). So
 * the read is taken at once and, if that fails, the whole configuration fails without trying
 * the other candidates. Reads not legal in the current state are never tried in its walk.
 *
 * Memory: the linearized set is a FrontierSet, whose encoding in the cache covers the operations
 * from the earliest :ok operation not yet linearized to the latest linearized one (see its design
 * comment), so the cache grows with configurations times concurrency, not times history length
 * as with the history-long bitsets of Knossos and Porcupine (kept here for histories of under 256
 * operations, where they are as small and cheaper to keep).
 *
 * Verdict first, evidence after: the search records the deepest failures (the first four
 * linearized prefixes at the deepest depth where the walk met a return it could not pass, Knossos'
 * :final-paths) at an amortized constant cost per push (see Deepest) rather than copying the
 * stack at every new deepest failure, which on long invalid histories costs many times the
 * verdict. The Prefixes and the model's message are built by evidence() once the verdict is known.
 *
 * A fourth cut, exact, for histories whose operations mostly follow one another (Knossos'
 * memstress histories, one process writing): when the first event left in the list is a call
 * directly followed by its own return, every other operation left was invoked after that
 * operation returned, so every linearization from here takes it next. It is taken without a
 * cache lookup and its frame is marked like a forced read's (its configuration failing fails the
 * parent). Leaving a configuration out of the cache is always sound (the cache only saves work;
 * the depth grows with every step, so the walk ends without it); here it also saves the cache
 * entry: a sequential history needs no cache at all.
 *
 * A fifth cut, exact, for models that mark operations that ignore the state
 * (Model.ignoresState: a register's writes, and its reads that constrain nothing): an :info
 * step that changes the state is taken only directly before an operation that looks at the
 * state. In a linearization where an :info operation w is directly followed by one that ignores
 * the state, that one either keeps every state (it can go before w) or sets the same state
 * whatever it was (w can be left out: it is :info, it may never have happened); repeating this
 * gives a linearization in which every :info step is directly followed by an operation that looks
 * at the state. So a configuration entered by an :info step ("owed") walks only the operations
 * that look at the state, and an :info step is not taken at all when no such operation that may
 * go next is legal after it (observable). An owed configuration is explored only in part, so it
 * is cached apart (owedCache): a configuration cached as failed in the main cache has no
 * completion at all, one in owedCache none that starts with an operation that looks at the state.
 * The dominance rules above keep their meaning in an owed configuration: a read forced there is
 * legal in every completion's place, and a forced frame failing fails the owed configuration,
 * which never claims more than that. The :info operations are then no longer tried at every
 * point where they could go, only where something can observe them. It is off for the first
 * CUT_AFTER steps (and until observedInfoStepsOnly(), which the checker calls with the model's
 * reduction, see Linearizability.REDUCE_AFTER): an easy search takes an :info operation early and
 * keeps it, where the cut tries it again at every configuration. (The step counts behind both
 * halves are in docs/checker-scale.md, "The figures behind the search's design".)
 *
 * Not a cut, and exact: for models that name the one state in which an operation is legal
 * (Model.requiredState: a register's constraining read, a cas), that state is compared with the
 * current one before the model's step is called (see mayBeLegal); and for models that name the
 * one state an operation leaves (Model.stateAfter: a register's write, a cas), an operation known
 * legal without the step (it ignores the state, or it passed that comparison) moves to that
 * state without the step (see apply). The search takes the same steps, without reading the
 * operation's objects again at every configuration.
 *
 * Not a cut either: the call of an :info operation the model says is read-only (Model.isReadOnly,
 * e.g. a crashed read) is never linked into the list. The walk never took it (an :info step
 * that changes nothing is not taken, see above), but walked past it at every configuration: an
 * :info call has no return, so it stays in the list to the end, and once the operations around
 * it are linearized it sits at the head, where long histories with many crashed reads spent
 * most of their steps visiting it (docs/checker-scale.md). The scans for a read to force and for an
 * :info step's observers skipped it too (it is no :ok read, and it ignores the state or, :info
 * and read-only, can be left out of any linearization that has it directly after an :info step).
 *
 * Crashed operations: four more rules, exact, for :info operations whose effect the
 * model's hooks name completely: "legal everywhere, leaves t" (Model.ignoresState with
 * Model.stateAfter t: a register's write of t, "blind") or "legal in s only, leaves t"
 * (Model.requiredState s with Model.stateAfter t: a cas [s t], "guarded"). By the hooks'
 * promises two :info operations with the same such effect step alike in every state; they
 * differ only in their invocation. Without these rules the search tries the crashed operations
 * in every combination, which on long histories with repeated values does not end in a 1 GB heap
 * (docs/checker-scale.md).
 * (1) Interchangeable operations in invocation order: of the operations of one effect class the
 *     search takes only the earliest invoked not yet linearized, so the linearized ones are
 *     always the first k of the class and are counted (classUsed). Why exact: an :info
 *     operation can go at any point after its invocation (it never returns), so if a
 *     linearization from here uses class members b1..bk (by invocation) at some positions, the
 *     k earliest unused members a1..ak, invoked no later (aj no later than bj), can take those
 *     positions, ordered by position; every state is the same.
 * (2) Guarded before blind: a blind :info step s -> t is not taken where the first unused
 *     operation of the guarded class (s, t) may go next (its call precedes the first return left).
 *     Why exact: if a linearization from here takes the blind w now and uses the guarded g later
 *     (in state s, leaving t) or never, swapping them (g now, w in g's place or nowhere) gives the
 *     same states: w is legal everywhere and leaves t too, and was invoked before now.
 * (3) The only :ok operation at the head dominates the :info calls before it: when the first
 *     :ok event left is a call followed, among the :ok events, by its own return, every other
 *     :ok operation left was invoked after it returned, so a linearization from here is a run of
 *     :info steps, that operation x, then the rest. If x ignores the state, the run can follow x
 *     (x keeps every state) or be left out (x sets the same state after any); if x is legal in one
 *     state only and in the current one, the run goes from that state back to it and can be left
 *     out (:info operations may never happen, and those it used stay available). So x is taken
 *     at once, without the cache, as the fourth cut above does when no :info call comes first.
 * (4) :info runs end at an observer: by the fifth cut's argument applied to a whole run, a
 *     linearization can be put in a form where every maximal run of :info steps is directly
 *     followed by an :ok operation that looks at the state and is legal there (a run followed
 *     by the end, or by an operation that ignores the state, can be left out or passed). The
 *     :ok operations that may go next do not change during a run, so an :info step is taken
 *     only if, from the state it leaves, the classes' first unused operations that may go next
 *     (as edges: a blind class from every state, a guarded class from its state) reach a state
 *     in which one of those :ok operations is legal (leadsToObserver; a breadth-first search over
 *     a handful of states). The fifth cut's one-step test let :info cas steps observe one
 *     another, so chains of them were tried that no :ok operation could follow. It applies
 *     only when every :info operation the walk may take has an effect class; otherwise the
 *     fifth cut's one-step test stays.
 * Rules (1)-(4) only choose among moves; configurations are cached as before (owed ones apart),
 * and a configuration's moves depend on the configuration alone (classUsed follows from the
 * linearized set), so the cache stays exact. CrashedOpsDifferentialTest checks them against the
 * brute force on histories with many equal crashed operations.
 *
 * Limits: the clock and a cancel flag are polled every 1024 steps, the memory guard every
 * 65536; hitting one returns UNKNOWN, never a verdict the search has not proven. A search can
 * also stop after a step budget and resume later, so that many keys can share few threads.
 */

import io.partkit.verification.history.Op;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Step;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** The search for one key. Not thread-safe: one instance per key and thread. */
final class WglSearch<S> {

  private final Model<S> model;
  private final Op[] ops; // what the model is given, per operation
  private final boolean[] info;
  private final boolean[] readOnly; // per operation: the model says it never changes the state
  private final boolean[] ignoresState; // per operation: Model.ignoresState (see the class comment)
  private final boolean anyIgnoresState;
  // per operation legal in one state only (Model.requiredState): REQUIRES_LONG with the state in
  // requiredLong, REQUIRES_VALUE with it in required, else ANY_STATE (ask the model's step)
  private final byte[] requires;
  private final long[] requiredLong;
  private final Object[] required;
  // per operation whose next state is known without the model's step wherever mayBeLegal passes
  // (Model.stateAfter, with ignoresState or requiredState): that state, else NO_STATE_AFTER
  private final Object[] after;
  private boolean owes; // the cut is on: :info steps are owed an observer (see the class comment)
  private final int okCount;

  // The event list: node 0 is the head; nodes 1.. are events in history order.
  private final int[] next;
  private final int[] prev;
  private final int[] nodeOp;
  // per node: RETURN, or the kind of operation it calls (read-only ones are never tried in the
  // walk, :ok ones among them may be forced), so that the scans test one byte per node
  private final byte[] nodeKind;
  private final int[] returnOf; // call node -> its return node, or -1 for :info
  // The same list without the :info calls (an :ok operation's call and return, linked and
  // lifted with the list's): the scan for a read to force walks it, so it does not pass the
  // :info calls that stay at the head of the list. Its calls before its first return are the
  // :ok calls before the list's first return (returns are :ok), in the same order. Without
  // :info operations it is the list itself (the same arrays).
  private final int[] okNext;
  private final int[] okPrev;

  // Interchangeable :info operations (see the class comment, "Crashed operations"): per :info
  // operation whose effect the model's hooks name completely, its effect class, else -1; its
  // rank in the class by invocation; per class, its operations by rank, how many are linearized
  // (always the first ones), and for a class of operations legal in one state, the class of
  // blind operations with the same result (-1 if none).
  private final int[] effectClass;
  private final int[] classRank;
  private final int[][] classOps;
  private final int[] classUsed;
  private final java.util.Map<List<Object>, Integer> guardedClass; // (required, after) -> class
  private final java.util.Map<Object, Integer> blindClass; // after (NIL_KEY for null) -> class
  private final int[] opCallNode;
  private final Object[] classNeed; // per class: BLIND, or the one state its operations need
  private final Object[] classAfter; // per class: the state its operations leave
  // every :info operation the walk may take has an effect class (else leadsToObserver is off)
  private final boolean allInfoClassified;

  WglSearch(Model<S> model, Paired paired) {
    this.model = model;
    this.ops = paired.ops();
    this.info = paired.info();
    int n = ops.length;
    readOnly = new boolean[n];
    ignoresState = new boolean[n];
    boolean anyIgnores = false;
    requires = new byte[n];
    requiredLong = new long[n];
    required = new Object[n];
    after = new Object[n];
    for (int i = 0; i < n; i++) {
      readOnly[i] = model.isReadOnly(ops[i]);
      Object v = model.requiredState(ops[i]);
      if (v instanceof Long) {
        requires[i] = REQUIRES_LONG;
        requiredLong[i] = (Long) v;
      } else if (v != Model.NOT_ONE_STATE) {
        requires[i] = REQUIRES_VALUE;
        required[i] = v;
      }
      ignoresState[i] = model.ignoresState(ops[i]);
      anyIgnores |= ignoresState[i];
      Object a = ignoresState[i] || requires[i] != ANY_STATE ? model.stateAfter(ops[i])
          : Model.NOT_ONE_STATE;
      after[i] = a == Model.NOT_ONE_STATE ? NO_STATE_AFTER : a;
    }
    anyIgnoresState = anyIgnores;
    int okOps = 0;
    for (boolean b : info) {
      okOps += b ? 0 : 1;
    }
    this.okCount = okOps;
    int[] events = paired.events(); // encoded op*2 + (1 if return)
    int m = events.length + 1;
    next = new int[m];
    prev = new int[m];
    nodeOp = new int[m];
    nodeKind = new byte[m];
    returnOf = new int[m];
    int[] callNode = new int[n];
    Arrays.fill(returnOf, -1);
    for (int k = 0; k < events.length; k++) {
      int node = k + 1;
      int op = events[k] >>> 1;
      nodeOp[node] = op;
      if ((events[k] & 1) == 0) {
        nodeKind[node] = !readOnly[op] ? CALL : info[op] ? INFO_READ_CALL : OK_READ_CALL;
        callNode[op] = node;
      } else {
        returnOf[callNode[op]] = node;
      }
    }
    opCallNode = callNode;
    effectClass = new int[n];
    classRank = new int[n];
    guardedClass = new java.util.HashMap<>();
    blindClass = new java.util.HashMap<>();
    classOps = effectClasses(guardedClass);
    classUsed = new int[classOps.length];
    classNeed = new Object[classOps.length];
    classAfter = new Object[classOps.length];
    boolean classified = true;
    for (int i = 0; i < n; i++) {
      int c = effectClass[i];
      if (c >= 0) {
        classNeed[c] = ignoresState[i] ? BLIND
            : requires[i] == REQUIRES_LONG ? (Object) requiredLong[i] : required[i];
        classAfter[c] = after[i];
      } else if (info[i] && !readOnly[i]) {
        classified = false;
      }
    }
    allInfoClassified = classified;
    // :info reads are never linked into the list (see the class comment)
    int last = 0;
    for (int node = 1; node < m; node++) {
      if (nodeKind[node] != INFO_READ_CALL) {
        next[last] = node;
        prev[node] = last;
        last = node;
      }
    }
    next[last] = -1;
    if (okCount == n) {
      okNext = next;
      okPrev = prev;
    } else {
      okNext = new int[m];
      okPrev = new int[m];
      last = 0;
      for (int node = 1; node < m; node++) {
        if (!info[nodeOp[node]]) {
          okNext[last] = node;
          okPrev[node] = last;
          last = node;
        }
      }
      okNext[last] = -1;
    }
  }

  // Search state, kept in fields so that a search can run in slices (see Linearizability).
  private FrontierSet set;
  private ConfigCache cache;
  private ConfigCache owedCache; // configurations just after an :info step (see the class comment)
  private ConfigCache spare; // given by reuse, to be the cache
  private ConfigCache spent; // the cache of a search that ended valid, for spentCache
  private int[] stackNode;
  private Object[] stackState;
  // the frame is a read taken by the dominance rule (see the class comment)
  private boolean[] stackForced;
  private boolean[] stackOwed; // the frame is an :info step taken under the cut (owed)
  private boolean scanned; // the current configuration was already scanned for a read to force
  private int depth;
  private int remainingOk;
  private S state;
  private final Deepest deepest = new Deepest(); // the evidence, recorded incrementally
  private long steps;
  private int entry;
  private boolean started;

  /**
   * What one call of {@link #advance} came to: the key's result, or its step budget spent first.
   */
  sealed interface Outcome permits Decided, BudgetSpent {}

  /** The search ended (valid, invalid or unknown): nothing is left to search. */
  record Decided(KeyResult result) implements Outcome {}

  /**
   * The budget ran out before an answer; call {@link #advance} again to continue where it stopped.
   * One constant, so a slice that ends this way allocates nothing.
   */
  enum BudgetSpent implements Outcome {
    INSTANCE
  }

  /** Runs the search to the end. */
  KeyResult run(Object key, int operations, SearchLimits limits) {
    // without a budget the search only ends decided
    return ((Decided) advance(key, operations, Long.MAX_VALUE, limits)).result();
  }

  /**
   * Gives this search, not started yet, another search's {@link #spentCache} to use as its own
   * (emptied): true if taken. Searches run one after another on a thread thus allocate their
   * cache once.
   */
  boolean reuse(ConfigCache cache) {
    if (started || spare != null) {
      return false;
    }
    spare = cache;
    return true;
  }

  /**
   * The cache of this search, once it ended valid, for another search to {@link #reuse}; null
   * otherwise, and after the first call.
   */
  ConfigCache spentCache() {
    ConfigCache c = spent;
    spent = null;
    return c;
  }

  /** Steps taken so far. */
  long steps() {
    return steps;
  }

  /**
   * Runs at most about {@code budget} more steps ({@link Long#MAX_VALUE}: no budget), polling
   * {@code limits}; the outcome says whether the search ended or the budget ran out first.
   */
  Outcome advance(Object key, int operations, long budget, SearchLimits limits) {
    if (!started) {
      started = true;
      int n = ops.length;
      set = new FrontierSet(info);
      cache = spare != null ? spare.reset(n) : new ConfigCache(n);
      spare = null;
      owedCache = owes ? new ConfigCache(0) : cache;
      stackNode = new int[n];
      stackState = new Object[n];
      stackForced = new boolean[n];
      stackOwed = new boolean[n];
      remainingOk = okCount;
      state = model.initialState();
      cache.add(set, state, mix(set.hash(), state));
      entry = next[0];
      scanned = false;
    }
    long stop = budget == Long.MAX_VALUE ? Long.MAX_VALUE : steps + budget;
    long counted = steps;
    try {
      while (remainingOk > 0) {
        if ((++steps & 1023) == 0) {
          limits.steps().addAndGet(steps - counted);
          counted = steps;
          long deadline = limits.deadline();
          if (deadline != Long.MAX_VALUE && limits.clock().getAsLong() - deadline > 0) {
            return unknown(key, operations, "time limit reached after " + steps + " steps");
          }
          if (limits.cancel().get()) {
            return unknown(key, operations, "cancelled: another key was already invalid");
          }
          if ((steps & 0xFFFF) == 0) {
            if (limits.memory().exhausted()) {
              return unknown(key, operations, "memory guard: " + limits.memory().describe());
            }
            limits.ticker().maybeReport();
          }
        }
        if (steps >= stop) {
          return BudgetSpent.INSTANCE;
        }
        if (steps == CUT_AFTER) {
          observedInfoStepsOnly();
        }
        if (!scanned) {
          scanned = true;
          int head = okNext[0];
          if (head >= 0 && returnOf[head] >= 0 && returnOf[head] == okNext[head]
              && (next[0] == head && next[head] == returnOf[head]
                  || ignoresState[nodeOp[head]] || requires[nodeOp[head]] != ANY_STATE)) {
            // the only operation that may go next, or the only :ok one with only :info calls
            // before it, which it dominates (see the class comment): taken without the cache
            int op = nodeOp[head];
            Object nextState = apply(op, state);
            if (nextState != ILLEGAL) {
              set.add(op);
              push(head, (S) nextState, true);
              continue;
            }
            // not legal here: the walk below meets its return and fails this configuration
          }
          int forced = forcibleRead();
          if (forced == FAILED) {
            if (backtrack()) {
              return invalid(key, operations);
            }
            continue;
          }
          if (forced >= 0) {
            push(forced, state, true);
            continue;
          }
          entry = next[0];
        }
        int kind = nodeKind[entry];
        if (kind != RETURN) {
          int op = nodeOp[entry];
          if (kind != CALL || owed() && ignoresState[op]) {
            // legal reads were forced by the scan; an illegal one cannot go here; an :info read is
            // moot; after an :info step only an operation that looks at the state may go next
            entry = next[entry];
            continue;
          }
          int c = info[op] ? effectClass[op] : -1;
          if (c >= 0 && classRank[op] != classUsed[c]) {
            // an earlier :info operation of the same effect is not linearized: only it is tried
            // (see the class comment, "Crashed operations")
            entry = next[entry];
            continue;
          }
          Object applied = apply(op, state);
          if (applied != ILLEGAL) {
            S nextState = (S) applied;
            // an :info step that changes nothing is not taken (see the class comment), nor one that
            // nothing that may go next can observe, nor a blind one where a guarded one that may
            // go next does the same ("Crashed operations")
            boolean skip = info[op]
                && (Objects.equals(nextState, state) || owes && !observable(op, nextState)
                    || c >= 0 && ignoresState[op] && guardedAlternative(nextState));
            if (!skip) {
              set.add(op);
              if ((info[op] ? owedCache : cache).add(set, nextState, mix(set.hash(), nextState))) {
                push(entry, nextState, false);
                continue;
              }
              set.remove(op);
            }
          }
          entry = next[entry];
        } else {
          // A return: its operation cannot be placed in this configuration.
          deepest.failed(stackNode, depth, nodeOp[entry], state);
          if (backtrack()) {
            return invalid(key, operations);
          }
        }
      }
    } catch (OutOfMemoryError e) {
      release(); // let the configurations go before anything else allocates
      return unknown(key, operations, "out of memory after " + steps + " steps");
    } finally {
      limits.steps().addAndGet(steps - counted);
    }
    KeyResult valid = new KeyResult(key, Verdict.VALID, null, prefixOps(), null, operations, steps);
    spent = cache.worthKeeping() ? cache : null;
    release();
    return new Decided(valid);
  }

  private static final int FAILED = -2;

  private static final byte RETURN = 0; // node kinds
  private static final byte CALL = 1;
  private static final byte INFO_READ_CALL = 2;
  private static final byte OK_READ_CALL = 3;

  /**
   * The cut of Model.ignoresState is turned on after this many steps (or earlier, by
   * observedInfoStepsOnly()): searches decided sooner are mostly easy ones, which it would slow
   * down (see the class comment). Why 128: docs/checker-scale.md, "The figures behind the search's
   * design".
   */
  static final long CUT_AFTER = 128;

  /**
   * Looks among the operations that may go next for an :ok read that is legal in the current
   * state. Returns its call node with its bit set and the hash updated, -1 when there is none, or
   * FAILED when there is one but its configuration was already explored (so this one fails too).
   */
  private int forcibleRead() {
    for (int e = okNext[0], k; e >= 0 && (k = nodeKind[e]) != RETURN; e = okNext[e]) {
      if (k != OK_READ_CALL) {
        continue;
      }
      int op = nodeOp[e];
      if (legalRead(op)) {
        set.add(op);
        if (!cache.add(set, state, mix(set.hash(), state))) {
          set.remove(op);
          return FAILED;
        }
        return e;
      }
    }
    return -1;
  }

  private static final byte ANY_STATE = 0;
  private static final byte REQUIRES_LONG = 1;
  private static final byte REQUIRES_VALUE = 2;

  /**
   * False when {@code op} is legal in one state only (Model.requiredState) and {@code s} is not
   * that state: compared here, without the model's step, which reads the operation's objects
   * (scattered over the heap) at every configuration; a Long equals only a Long of the same
   * long value. True otherwise (the step then decides).
   */
  private boolean mayBeLegal(int op, S s) {
    switch (requires[op]) {
      case REQUIRES_LONG:
        return s instanceof Long && (Long) s == requiredLong[op];
      case REQUIRES_VALUE:
        return Objects.equals(s, required[op]);
      default:
        return true;
    }
  }

  /** What apply returns for an operation not legal in the state; and after's "no state known". */
  private static final Object ILLEGAL = new Object();
  private static final Object NO_STATE_AFTER = new Object();

  /**
   * The state after {@code op} in {@code s}, or ILLEGAL. Where the operation is legal in one
   * state only (Model.requiredState), one comparison first (mayBeLegal); then, where the
   * operation is known legal (it ignores the state, or it passed that comparison) and the model
   * names the one state it leaves (Model.stateAfter, a register's write or cas), that state
   * without the model's step, which reads the operation's objects; else the step.
   */
  @SuppressWarnings("unchecked")
  private Object apply(int op, S s) {
    if (!mayBeLegal(op, s)) {
      return ILLEGAL;
    }
    Object a = after[op];
    if (a != NO_STATE_AFTER) {
      return a;
    }
    Step<S> step = model.step(s, ops[op]);
    return step instanceof Step.Next ? ((Step.Next<S>) step).state() : ILLEGAL;
  }

  /**
   * Whether the :ok read {@code op} is legal in the current state and keeps it: for one legal
   * in one state only, that state (a read keeps it, Model.isReadOnly); else the model's step.
   */
  private boolean legalRead(int op) {
    if (requires[op] != ANY_STATE) {
      return mayBeLegal(op, state);
    }
    Step<S> step = model.step(state, ops[op]);
    return step instanceof Step.Next && Objects.equals(((Step.Next<S>) step).state(), state);
  }

  /**
   * Linearizes the call at {@code node} (bit and hash already set), moving to {@code nextState}.
   */
  private void push(int node, S nextState, boolean forced) {
    stackNode[depth] = node;
    stackState[depth] = state;
    stackForced[depth] = forced;
    stackOwed[depth] = owes && info[nodeOp[node]];
    depth++;
    state = nextState;
    lift(node);
    int op = nodeOp[node];
    if (!info[op]) {
      remainingOk--;
    } else if (effectClass[op] >= 0) {
      classUsed[effectClass[op]]++;
    }
    entry = next[0];
    scanned = false;
  }

  /**
   * The current configuration fails: undo the last linearized operation and continue the walk of
   * the configuration before it after that operation. A forced read's configuration failing means
   * its parent fails too (the read dominates every alternative), so those frames are popped on.
   *
   * @return true when the first configuration failed: the history is not linearizable
   */
  private boolean backtrack() {
    while (true) {
      if (depth == 0) {
        return true;
      }
      depth--;
      deepest.popped(depth);
      int top = stackNode[depth];
      @SuppressWarnings("unchecked")
      S previous = (S) stackState[depth];
      stackState[depth] = null;
      state = previous;
      int op = nodeOp[top];
      set.remove(op);
      unlift(top);
      if (!info[op]) {
        remainingOk++;
      } else if (effectClass[op] >= 0) {
        classUsed[effectClass[op]]--;
      }
      if (!stackForced[depth]) {
        entry = next[top];
        // this configuration's scan found nothing to force, or its frame would be forced
        scanned = true;
        return false;
      }
    }
  }

  /**
   * The current configuration was reached by an :info step: a linearization from here is tried
   * only if it starts with an operation that looks at the state (see the class comment).
   */
  private boolean owed() {
    return depth > 0 && stackOwed[depth - 1];
  }

  /**
   * Turns the cut of Model.ignoresState on (see the class comment), from the next step on; the
   * checker does so for searches not decided within a few steps (see Linearizability). Exact at
   * any point: configurations explored before were explored in full, which is more than the
   * cut asks, and only :info steps taken from now on make a configuration owed.
   */
  void observedInfoStepsOnly() {
    if (anyIgnoresState && !owes) {
      owes = true;
      if (started) {
        owedCache = new ConfigCache(0);
      }
    }
  }

  /**
   * Whether an operation other than {@code op} that looks at the state and may go next is legal
   * in {@code after}: if none is, the configuration after the :info step {@code op} would fail
   * at once (only such an operation may follow it), so it is not entered.
   */
  private boolean observable(int op, S after) {
    if (allInfoClassified) {
      return leadsToObserver(op, after);
    }
    for (int e = next[0]; e >= 0 && nodeKind[e] != RETURN; e = next[e]) {
      int o = nodeOp[e];
      if (o != op && !ignoresState[o] && apply(o, after) != ILLEGAL) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether, after the :info step {@code op} took the current state to {@code s1}, a run of
   * further :info steps (none, or several) can reach a state in which an :ok operation that looks
   * at the state and may go next is legal: in a linearization in the normal form of the class
   * comment ("Crashed operations", rule 4) every run of :info steps ends so, so the step is not
   * taken when none can. The steps after the first look at the state (in an owed configuration
   * a blind step is not taken, see the fifth cut): they are the guarded classes' first operations
   * not linearized that may go next, as edges between states. A breadth-first search over the
   * few states these reach.
   *
   * <p>A state t reached by further steps does not count when one step from the current state s
   * reaches it too: a guarded class (s, t) that may go next, or, after a blind first step, a
   * blind class leaving t. Such a one-step run dominates every longer run R from s to t that
   * this step starts: if a linearization takes R now and that one operation d later, or never,
   * swapping them (d now, R in d's place) keeps every state, since at d's place the state is s
   * (d guarded) or anything (d blind, R then starts with a blind step); and d's own step is one
   * the walk tries. (If R uses d itself, R returns to s first and its part before d can be left
   * out.) A run back to the current state is dominated by no run at all (the :ok operation is
   * legal there now).
   */
  private boolean leadsToObserver(int op, Object s1) {
    if (observedIn(s1)) {
      return true;
    }
    int firstReturn = firstReturn();
    Object[] reached = reachedBuffer;
    int count = 0;
    reached[count++] = s1;
    int taken = effectClass[op];
    boolean blindFirst = ignoresState[op];
    boolean found = false;
    for (int i = 0; i < count && !found; i++) {
      Object s = reached[i];
      for (int c = 0; c < classOps.length; c++) {
        if (classNeed[c] == BLIND || !Objects.equals(classNeed[c], s)
            || !mayGoNext(c, c == taken ? 1 : 0, firstReturn)) {
          continue;
        }
        Object t = classAfter[c];
        boolean seen = false;
        for (int k = 0; k < count && !seen; k++) {
          seen = Objects.equals(reached[k], t);
        }
        if (seen) {
          continue;
        }
        if (count == reached.length) {
          reached = reachedBuffer = Arrays.copyOf(reached, 2 * count);
        }
        reached[count++] = t;
        // a run back to the current state can be left out; one that one step does is dominated
        if (observedIn(t) && !Objects.equals(t, state) && !oneStep(t, blindFirst, firstReturn)) {
          found = true;
          break;
        }
      }
    }
    Arrays.fill(reached, 0, count, null);
    return found;
  }

  /**
   * Whether the first operation not linearized of class {@code c}, past {@code skip} more, may
   * go next: its call comes before the first return left in the list (nodes are numbered in
   * history order, and the list keeps that order). The first of a class not linearized is its
   * earliest invoked, so if any of the class may go next, it may.
   */
  private boolean mayGoNext(int c, int skip, int firstReturn) {
    int used = classUsed[c] + skip;
    return used < classOps[c].length && opCallNode[classOps[c][used]] < firstReturn;
  }

  /**
   * Whether one :info step from the current state reaches {@code t}: a guarded class (state, t),
   * or with {@code blind} a blind class leaving t, whose first operation not linearized may go
   * next (see leadsToObserver).
   */
  private boolean oneStep(Object t, boolean blind, int firstReturn) {
    Integer g = guardedClass.get(Arrays.asList(state, t));
    if (g != null && mayGoNext(g, 0, firstReturn)) {
      return true;
    }
    Integer b = blind ? blindClass.get(t == null ? NIL_KEY : t) : null;
    return b != null && mayGoNext(b, 0, firstReturn);
  }

  /** blindClass's key for a blind class leaving null (HashMap takes null, but says it apart). */
  private static final Object NIL_KEY = new Object();

  private Object[] reachedBuffer = new Object[8];

  /** Whether an :ok operation that looks at the state and may go next is legal in {@code s}. */
  @SuppressWarnings("unchecked")
  private boolean observedIn(Object s) {
    for (int e = okNext[0]; nodeKind[e] != RETURN; e = okNext[e]) {
      int o = nodeOp[e];
      if (!ignoresState[o] && apply(o, (S) s) != ILLEGAL) {
        return true;
      }
    }
    return false;
  }

  /** Marks a blind operation's class in effectClasses' keys (ignoresState, no required state). */
  private static final Object BLIND = new Object();

  /**
   * Sorts the :info operations the search may take into effect classes (see the class comment,
   * "Crashed operations"): two are in one class when the model's hooks give both the same
   * complete effect, either "legal everywhere, leaves t" (Model.ignoresState with
   * Model.stateAfter t: a write of t) or "legal in s only, leaves t" (Model.requiredState s with
   * Model.stateAfter t: a cas [s t]); by the hooks' promises their steps are then the same
   * function of the state. Fills effectClass and classRank (ops are numbered in invocation
   * order, so rank order is invocation order) and {@code guarded}, the class of each (s, t) of the
   * second kind; returns each class's operations by rank.
   */
  private int[][] effectClasses(java.util.Map<List<Object>, Integer> guarded) {
    java.util.Map<List<Object>, Integer> classes = new java.util.HashMap<>();
    List<int[]> members = new ArrayList<>();
    int[] sizes = new int[8];
    for (int i = 0; i < ops.length; i++) {
      effectClass[i] = -1;
      if (!info[i] || readOnly[i] || after[i] == NO_STATE_AFTER) {
        continue;
      }
      Object need;
      if (ignoresState[i]) {
        need = BLIND;
      } else if (requires[i] == REQUIRES_LONG) {
        need = requiredLong[i];
      } else if (requires[i] == REQUIRES_VALUE) {
        need = required[i];
      } else {
        continue;
      }
      List<Object> k = java.util.Arrays.asList(need, after[i]);
      Integer c = classes.get(k);
      if (c == null) {
        c = classes.size();
        classes.put(k, c);
        if (need != BLIND) {
          guarded.put(k, c);
        } else {
          blindClass.put(after[i] == null ? NIL_KEY : after[i], c);
        }
        if (c == sizes.length) {
          sizes = Arrays.copyOf(sizes, 2 * c);
        }
      }
      effectClass[i] = c;
      classRank[i] = sizes[c]++;
    }
    int[][] byRank = new int[classes.size()][];
    for (int c = 0; c < byRank.length; c++) {
      byRank[c] = new int[sizes[c]];
    }
    for (int i = 0; i < ops.length; i++) {
      if (effectClass[i] >= 0) {
        byRank[effectClass[i]][classRank[i]] = i;
      }
    }
    return byRank;
  }

  /**
   * Whether an :info operation legal in the current state only and leaving {@code t} (a cas
   * [state t]) is not linearized and may go next: then a blind :info operation leaving
   * {@code t} (a write of t) is not taken here (see the class comment, "Crashed operations").
   * "May go next": its call comes before the first return left in the list; the first one of its
   * class not linearized is the earliest invoked, so if any of the class may go next, it may.
   */
  private boolean guardedAlternative(Object t) {
    Integer g = guardedClass.isEmpty() ? null : guardedClass.get(Arrays.asList(state, t));
    return g != null && mayGoNext(g, 0, firstReturn());
  }

  /** The first return left in the list (there is one while an :ok operation is left). */
  private int firstReturn() {
    int e = okNext[0];
    while (nodeKind[e] != RETURN) {
      e = okNext[e];
    }
    return e;
  }

  private void release() {
    cache = null;
    owedCache = null;
    stackState = null;
  }

  private Outcome unknown(Object key, int operations, String cause) {
    release();
    return new Decided(new KeyResult(key, Verdict.UNKNOWN, cause, null, null, operations, steps));
  }

  private Outcome invalid(Object key, int operations) {
    release();
    return new Decided(new KeyResult(key, Verdict.INVALID, null, null, null, operations, steps));
  }

  /**
   * The evidence of an invalid result, built from what the search recorded (see Deepest): the
   * operation of the first deepest failure, what the model says about it, and the prefixes.
   */
  Evidence evidence() {
    int op = deepest.op();
    if (op < 0) {
      return null;
    }
    List<Prefix> prefixes = new ArrayList<>(deepest.count());
    for (int i = 0; i < deepest.count(); i++) {
      int[] p = deepest.prefix(i);
      prefixes.add(new Prefix(opsOf(p, p.length), deepest.prefixState(i)));
    }
    @SuppressWarnings("unchecked")
    Step<S> step = model.step((S) deepest.state(), ops[op]);
    String message = step instanceof Step.Inconsistent
        ? ((Step.Inconsistent<S>) step).message()
        : "no order of the concurrent operations lets it complete by its return";
    return new Evidence(ops[op], message, prefixes);
  }

  private List<Op> prefixOps() {
    return opsOf(stackNode, depth);
  }

  /**
   * The operations of the call nodes, as an unmodifiable list (which KeyResult and Prefix keep
   * without copying).
   */
  private List<Op> opsOf(int[] nodes, int count) {
    Op[] l = new Op[count];
    for (int i = 0; i < count; i++) {
      l[i] = ops[nodeOp[nodes[i]]];
    }
    return List.of(l);
  }

  private void lift(int call) {
    next[prev[call]] = next[call];
    if (next[call] >= 0) {
      prev[next[call]] = prev[call];
    }
    int ret = returnOf[call];
    if (ret >= 0) {
      next[prev[ret]] = next[ret];
      if (next[ret] >= 0) {
        prev[next[ret]] = prev[ret];
      }
      if (okNext != next) { // an :ok operation: in the other list too
        okNext[okPrev[call]] = okNext[call];
        if (okNext[call] >= 0) {
          okPrev[okNext[call]] = okPrev[call];
        }
        okNext[okPrev[ret]] = okNext[ret];
        if (okNext[ret] >= 0) {
          okPrev[okNext[ret]] = okPrev[ret];
        }
      }
    }
  }

  private void unlift(int call) {
    int ret = returnOf[call];
    if (ret >= 0) {
      if (okNext != next) { // the reverse of lift's order
        okNext[okPrev[ret]] = ret;
        if (okNext[ret] >= 0) {
          okPrev[okNext[ret]] = ret;
        }
        okNext[okPrev[call]] = call;
        if (okNext[call] >= 0) {
          okPrev[okNext[call]] = call;
        }
      }
      next[prev[ret]] = ret;
      if (next[ret] >= 0) {
        prev[next[ret]] = ret;
      }
    }
    next[prev[call]] = call;
    if (next[call] >= 0) {
      prev[next[call]] = call;
    }
  }

  private static long mix(long setHash, Object state) {
    long h = setHash ^ (state == null ? 0 : state.hashCode()) * 0x9E3779B97F4A7C15L;
    h ^= h >>> 31;
    h *= 0xBF58476D1CE4E5B9L;
    return h ^ (h >>> 29);
  }
}
