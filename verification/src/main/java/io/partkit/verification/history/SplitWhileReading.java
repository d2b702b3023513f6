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
  private final Map<Object, Object> openKey = new HashMap<>();
  private boolean splitting = true; // false once the rule fails (AUTO) or a split error was met
  private boolean independent; // AUTO: the rule holds so far
  private boolean anyInvocation;
  private HistoryParseException error;

  SplitWhileReading(String source, Independent.Mode mode) {
    this.source = source;
    this.mode = mode;
    this.independent = mode == Independent.Mode.AUTO;
    this.splitting = mode != Independent.Mode.NO;
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
    int i = ops.size();
    if (i == how.length) {
      how = Arrays.copyOf(how, i * 2);
    }
    if (op.isClient() && mode == Independent.Mode.AUTO && independent) {
      if (op.key() != null || (op.type() == OpType.INVOKE && !Independent.isTuple(op))) {
        independent = false;
        putBack();
      } else if (op.type() == OpType.INVOKE) {
        anyInvocation = true;
      }
    }
    if (!splitting || !op.isClient()) {
      ops.add(op);
      return true;
    }
    try {
      ops.add(split(op, i));
    } catch (HistoryParseException e) {
      error = e; // thrown at the end, if the history is split at all
      splitting = false;
      ops.add(op);
    }
    return true;
  }

  /** As Independent.split's loop does it for one client operation. */
  private Op split(Op op, int i) throws HistoryParseException {
    if (op.type() == OpType.INVOKE) {
      if (!(op.value() instanceof List) || ((List<?>) op.value()).size() != 2) {
        throw Independent.notATuple(source, op);
      }
      List<?> kv = (List<?>) op.value();
      openKey.put(op.process(), kv.get(0));
      how[i] = INVOCATION;
      return Independent.with(op, kv.get(0), kv.get(1));
    }
    if (!openKey.containsKey(op.process())) {
      return op; // a completion without invocation: validation reports it with its line
    }
    Object k = openKey.remove(op.process());
    Object v = op.value();
    if (v instanceof List && ((List<?>) v).size() == 2
        && java.util.Objects.equals(((List<?>) v).get(0), k)) {
      how[i] = UNWRAPPED;
      return Independent.with(op, k, ((List<?>) v).get(1));
    }
    if (v == null || op.type() != OpType.OK) {
      how[i] = KEYED;
      return Independent.with(op, k, v);
    }
    throw Independent.notItsKey(source, op, k);
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
