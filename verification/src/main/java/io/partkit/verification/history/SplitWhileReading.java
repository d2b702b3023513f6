package io.partkit.verification.history;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The list the readers add operations to when a file is read split by key
 * ({@link Histories#read(java.nio.file.Path, Independent.Mode)}): each operation is split as it
 * arrives, as {@link Independent#split} splits it, so a Jepsen {@code independent} history gets one
 * {@link Op} per event instead of two (the split made a second one for every event, and the
 * first ones became garbage). The result is exactly {@code Independent.apply(history, mode)}:
 * with {@link Independent.Mode#AUTO}, as soon as an operation shows the history is not one to
 * split (the rule of {@link Independent}), the operations split so far are put back as they were
 * read, and the rest are kept as read; a split error is kept until the end, where it is thrown
 * only if the history is split (after any error of reading, as before).
 * {@code SplitWhileReadingTest} holds it to {@code apply} on seeded histories.
 */
final class SplitWhileReading extends AbstractList<Op> {
  // per operation, how it was split (to put it back)
  private static final byte AS_READ = 0;
  private static final byte INVOCATION = 1; // value [k v] -> key k, value v
  private static final byte UNWRAPPED = 2; // a completion's [k v] -> key k, value v
  private static final byte KEYED = 3; // a completion's value kept, key k added

  private final String source;
  private final Independent.Mode mode;
  private final List<Op> ops = new ArrayList<>();
  private byte[] how = new byte[1024];
  /**
   * Per process, the key of its open invocation, or CLOSED: a completion closes it by setting
   * CLOSED rather than removing the entry, so that the process' next invocation replaces a value
   * instead of allocating an entry (a million invocations made a million entries).
   */
  private final Map<Object, Object> openKey = new HashMap<>();
  private static final Object CLOSED = new Object();
  private boolean splitting = true; // false once the rule fails (AUTO) or a split error was met
  private boolean independent; // AUTO: the rule holds so far
  private boolean anyInvocation;
  private HistoryParseException error;
  private int errorAt = -1;

  /**
   * A continuation ({@link #continuation()}): the part of a history after another part, read by
   * another thread. A completion whose process this part has not invoked or completed yet may
   * complete an invocation of the part before it: it is kept as read and split when the parts
   * are joined ({@link #append}).
   */
  private final boolean continuation;
  private final java.util.Set<Object> touched;
  private int[] unresolved = new int[0];
  private int unresolvedCount;

  SplitWhileReading(String source, Independent.Mode mode) {
    this(source, mode, false);
  }

  private SplitWhileReading(String source, Independent.Mode mode, boolean continuation) {
    this.source = source;
    this.mode = mode;
    this.independent = mode == Independent.Mode.AUTO;
    this.splitting = mode != Independent.Mode.NO;
    this.continuation = continuation;
    this.touched = continuation ? new java.util.HashSet<>() : null;
  }

  /** An empty list for the part of the history after this one's, to be {@link #append}ed. */
  SplitWhileReading continuation() {
    return new SplitWhileReading(source, mode, true);
  }

  @Override
  public Op get(int i) {
    return ops.get(i);
  }

  @Override
  public int size() {
    return ops.size();
  }

  @Override
  public boolean add(Op op) {
    take(op, op.index(), op.process(), op.type(), op.f(), op.value(), null, false, op.key(),
        op.time(), op.line());
    return true;
  }

  /**
   * As {@link #add(Op)} for the operation of these fields, built once (split or as read) instead
   * of read and then split. With {@code pair}, its value is the vector {@code [value second]},
   * made only when it is kept (the split takes a {@code [k v]} apart without it).
   */
  void add(long index, Object process, OpType type, String f, Object value, Object second,
      boolean pair, Object key, long time, int line) {
    take(null, index, process, type, f, value, second, pair, key, time, line);
  }

  /** The operation, {@code asRead} if given, else made of its fields as read. */
  private void take(Op asRead, long index, Object process, OpType type, String f, Object value,
      Object second, boolean pair, Object key, long time, int line) {
    int i = ops.size();
    if (i == how.length) {
      how = Arrays.copyOf(how, i * 2);
    }
    boolean client = !Op.NEMESIS.equals(process);
    if (client && mode == Independent.Mode.AUTO && independent) {
      if (key != null || (type == OpType.INVOKE && !isTuple(f, value, second, pair))) {
        independent = false;
        putBack();
      } else if (type == OpType.INVOKE) {
        anyInvocation = true;
      }
    }
    if (!splitting || !client) {
      ops.add(asRead != null ? asRead
          : new Op(index, process, type, f, whole(value, second, pair), key, time, line));
      return;
    }
    try {
      ops.add(split(asRead, index, process, type, f, value, second, pair, key, time, line, i));
    } catch (HistoryParseException e) {
      error = e; // thrown at the end, if the history is split at all
      errorAt = i;
      splitting = false;
      ops.add(asRead != null ? asRead
          : new Op(index, process, type, f, whole(value, second, pair), key, time, line));
    }
  }

  private static Object whole(Object value, Object second, boolean pair) {
    return pair ? ShortList.of(value, second) : value;
  }

  private static boolean isTuple(String f, Object value, Object second, boolean pair) {
    if (pair) {
      return Independent.isTuple(f, value, second);
    }
    return value instanceof List && ((List<?>) value).size() == 2
        && Independent.isTuple(f, ((List<?>) value).get(0), ((List<?>) value).get(1));
  }

  /** As Independent.split's loop does it for one client operation. */
  private Op split(Op asRead, long index, Object process, OpType type, String f, Object value,
      Object second, boolean pair, Object key, long time, int line, int i)
      throws HistoryParseException {
    if (type == OpType.INVOKE) {
      Object k;
      Object v;
      if (pair) {
        k = value;
        v = second;
      } else if (value instanceof List && ((List<?>) value).size() == 2) {
        k = ((List<?>) value).get(0);
        v = ((List<?>) value).get(1);
      } else {
        throw Independent.notATuple(source,
            asRead != null ? asRead : new Op(index, process, type, f, value, key, time, line));
      }
      openKey.put(process, k);
      if (continuation) {
        touched.add(process);
      }
      how[i] = INVOCATION;
      return new Op(index, process, type, f, v, k, time, line);
    }
    Object open = openKey.getOrDefault(process, CLOSED);
    if (open == CLOSED) {
      if (continuation && touched.add(process)) {
        if (unresolvedCount == unresolved.length) {
          unresolved = Arrays.copyOf(unresolved, Math.max(16, unresolvedCount * 2));
        }
        unresolved[unresolvedCount++] = i; // its invocation may be in the part before
      }
      // a completion without invocation: validation reports it with its line
      return asRead != null ? asRead
          : new Op(index, process, type, f, whole(value, second, pair), key, time, line);
    }
    return completion(asRead, index, process, type, f, value, second, pair, key, time, line, i,
        closed(process, open));
  }

  /** Closes the process' open invocation, of key {@code k}; returns k. */
  private Object closed(Object process, Object k) {
    openKey.put(process, CLOSED);
    return k;
  }

  /** A completion of an invocation of key {@code k}, as Independent.split splits it. */
  private Op completion(Op op, int i, Object k) throws HistoryParseException {
    return completion(op, op.index(), op.process(), op.type(), op.f(), op.value(), null, false,
        op.key(), op.time(), op.line(), i, k);
  }

  private Op completion(Op asRead, long index, Object process, OpType type, String f,
      Object value, Object second, boolean pair, Object key, long time, int line, int i, Object k)
      throws HistoryParseException {
    if (pair ? java.util.Objects.equals(value, k)
        : value instanceof List && ((List<?>) value).size() == 2
            && java.util.Objects.equals(((List<?>) value).get(0), k)) {
      how[i] = UNWRAPPED;
      return new Op(index, process, type, f, pair ? second : ((List<?>) value).get(1), k, time,
          line);
    }
    Object v = whole(value, second, pair);
    if (v == null || type != OpType.OK) {
      how[i] = KEYED;
      return new Op(index, process, type, f, v, k, time, line);
    }
    throw Independent.notItsKey(source,
        asRead != null ? asRead : new Op(index, process, type, f, v, key, time, line), k);
  }

  /** The history turned out not to be split: every operation as it was read. */
  private void putBack() {
    splitting = false;
    error = null;
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      switch (how[i]) {
        case INVOCATION:
        case UNWRAPPED:
          ops.set(i, Independent.with(op, null, ShortList.of(op.key(), op.value())));
          break;
        case KEYED:
          ops.set(i, Independent.with(op, null, op.value()));
          break;
        default:
          break;
      }
      how[i] = AS_READ;
    }
  }

  /**
   * Appends the operations of {@code next}, a {@link #continuation()} read from where this part
   * ends: the result is as if this list had been given them one by one. The rule of
   * {@link Independent.Mode#AUTO} holds iff it holds in both parts; a completion in {@code next}
   * that this part's open invocation explains is split with its key now; the first split error
   * by position is the one kept.
   */
  void append(SplitWhileReading next) {
    boolean rule = mode != Independent.Mode.AUTO || (independent && next.independent);
    if (!rule) {
      independent = false;
      putBack();
      next.putBack();
    } else {
      anyInvocation |= next.anyInvocation;
      if (splitting) {
        // this part had no split error: next's unresolved completions before its own first
        // error are split now, the first error among them coming before next's own
        for (int j = 0; j < next.unresolvedCount; j++) {
          int u = next.unresolved[j];
          if (next.errorAt >= 0 && u > next.errorAt) {
            break;
          }
          Op op = next.ops.get(u);
          Object open = openKey.getOrDefault(op.process(), CLOSED);
          if (open != CLOSED) {
            try {
              next.ops.set(u, next.completion(op, u, open));
            } catch (HistoryParseException e) {
              next.error = e;
              next.errorAt = u;
              next.splitting = false;
              break;
            }
          }
        }
        if (next.error != null) {
          error = next.error;
          errorAt = ops.size() + next.errorAt;
          splitting = false;
        }
      }
      // else this part's error is the first; next's operations are not looked at again
    }
    int n = ops.size();
    ops.addAll(next.ops);
    if (how.length < ops.size()) {
      how = Arrays.copyOf(how, ops.size());
    }
    System.arraycopy(next.how, 0, how, n, next.ops.size());
  }

  /**
   * The operations, split or as read, once all are added.
   *
   * @throws HistoryParseException what {@link Independent#apply} would throw
   */
  List<Op> finish() throws HistoryParseException {
    if (mode == Independent.Mode.AUTO && !(independent && anyInvocation)) {
      putBack();
    }
    if (error != null) {
      throw error;
    }
    return ops;
  }
}
