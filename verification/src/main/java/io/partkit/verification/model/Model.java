package io.partkit.verification.model;

import io.partkit.verification.history.Op;
import java.util.BitSet;
import java.util.List;

/**
 * A sequential specification: an initial state and a pure step function, as in Knossos'
 * {@code knossos.model/Model}.
 *
 * <p>Properties an implementation must have:
 * <ul>
 *   <li><b>Pure and deterministic</b>: {@code step} depends only on its arguments and never
 *       mutates the state it is given; the search calls it many times with the same state.
 *   <li><b>Value states</b>: states are immutable and implement {@code equals}/{@code hashCode}
 *       consistently (records, {@code List.of}, boxed values, {@code null}); the search caches
 *       (linearized operations, state) pairs and two equal states must be interchangeable.
 *       Cheap hash codes matter: they are computed once per new configuration.
 *   <li><b>Thread-safe</b>: different keys of a history are checked in parallel with one model.
 * </ul>
 *
 * <p>What {@code step} is given: for an {@code :ok} operation, the completion (type
 * {@link io.partkit.verification.history.OpType#OK}) whose value is what the operation returned
 * (the invocation's value when the completion has none); for an {@code :info} operation, the
 * invocation's arguments with type {@link io.partkit.verification.history.OpType#INFO}: its
 * result is unknown and the step must accept any result (e.g. an info read is always legal).
 * The checker may also leave an {@code :info} operation out entirely (it never happened).
 *
 * @param <S> the state type
 */
public interface Model<S> {

  /** The model's name, e.g. {@code cas-register}. */
  String name();

  /** The initial state. */
  S initialState();

  /** The next state after {@code op} in {@code state}, or an inconsistency. */
  Step<S> step(S state, Op op);

  /**
   * An optional ability that makes the search faster: true promises that {@code op} never
   * changes the state, i.e. for every state {@code s}, {@code step(s, op)} is either an
   * inconsistency or {@code Step.next(t)} with {@code t.equals(s)} (a read). The checker then
   * takes such an operation as soon as it is legal and never tries it where it is not. A wrong
   * promise makes verdicts wrong; the default, false, is always safe.
   */
  default boolean isReadOnly(Op op) {
    return false;
  }

  /**
   * An optional ability that makes the search smaller: true promises that {@code op} does not
   * look at the state. For every state {@code s}, {@code step(s, op)} is {@code Step.next(t)}
   * (never an inconsistency), where either {@code t.equals(s)} for every {@code s} (e.g. a read
   * that constrains nothing) or {@code t} is the same for every {@code s} (e.g. a blind write).
   * The checker then linearizes an {@code :info} operation that changes the state only directly
   * before an operation that does look at the state: an {@code :info} operation directly followed
   * by one that ignores the state can be moved after it, or left out when that one overwrites the
   * state, without changing any other operation's state. A wrong promise makes verdicts wrong;
   * the default, false, is always safe.
   */
  default boolean ignoresState(Op op) {
    return false;
  }

  /** What {@link #requiredState} returns for an operation not legal in exactly one state. */
  Object NOT_ONE_STATE = new Object();

  /**
   * An optional ability that makes the search faster: the one state {@code v} in which
   * {@code op} is legal, i.e. {@code step(s, op)} is an inconsistency unless
   * {@code Objects.equals(s, v)}, and a {@code Step.Next} when it is (a register's read of
   * {@code v}, a cas from {@code v}); otherwise {@link #NOT_ONE_STATE}. The checker then tests
   * the operation against the current state with one comparison, on a {@code long} when
   * {@code v} is a {@link Long}, and calls {@link #step} only where it is legal (and not at all
   * for an operation {@link #isReadOnly} says keeps the state): the step reads the operation's
   * objects, scattered over the heap, again at every configuration. A wrong value makes verdicts
   * wrong; the default, {@link #NOT_ONE_STATE}, is always safe.
   */
  default Object requiredState(Op op) {
    return NOT_ONE_STATE;
  }

  /**
   * An optional ability that makes the search faster: the one state {@code v} that {@code op}
   * leaves the model in wherever it is legal, i.e. for every state {@code s}, {@code step(s, op)}
   * is an inconsistency or {@code Step.next(t)} with {@code t.equals(v)} (a register's write of
   * {@code v}, a cas to {@code v}); otherwise {@link #NOT_ONE_STATE}. Where the checker knows
   * without the step that {@code op} is legal (it {@link #ignoresState}, or the state is its
   * {@link #requiredState}), it then moves to {@code v} without calling {@link #step}. A wrong
   * value makes verdicts wrong; the default, {@link #NOT_ONE_STATE}, is always safe.
   */
  default Object stateAfter(Op op) {
    return NOT_ONE_STATE;
  }

  /**
   * An optional reduction that makes the search smaller: the positions in {@code ops} of
   * operations that can be left out of the search without changing the verdict. {@code ops} is
   * one key's history as the search is given it (an {@code :ok} operation as its completion, an
   * {@code :info} or never-completed one as its invocation with type
   * {@link io.partkit.verification.history.OpType#INFO}; {@code :fail} operations already left
   * out), in invocation order; {@code called[i]} and {@code returned[i]} are the positions of
   * operation i's invocation and completion among the key's events ({@code returned[i]} is
   * {@link Integer#MAX_VALUE} for an :info operation), so that operation j cannot be linearized
   * after operation i when {@code returned[j] < called[i]}. The checker honours only positions
   * of {@code :info} operations (those may never have happened); the promise is that the rest of
   * the history is linearizable with them iff it is without them. A wrong promise makes verdicts
   * wrong; the default, nothing, is always safe. Evidence for an invalid history then omits the
   * dropped operations.
   */
  default BitSet droppable(List<Op> ops, int[] called, int[] returned) {
    return new BitSet();
  }
}
