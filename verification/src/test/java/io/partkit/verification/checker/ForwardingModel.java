package io.partkit.verification.checker;

import io.partkit.verification.history.Op;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Step;
import java.util.BitSet;
import java.util.List;

/**
 * A model that forwards to another but leaves out the optional abilities a differential test
 * turns off (each then takes {@link Model}'s default, which the search treats as "not known"),
 * so the search with an ability can be compared with the search without it on the same model.
 */
final class ForwardingModel {

  /** The abilities to keep. */
  enum Keep { CUT, REDUCTION, REQUIRED_STATE, STATE_AFTER }

  private ForwardingModel() {}

  /** {@code m}'s name, initial state, step and reads, plus the abilities in {@code keep}. */
  static <S> Model<S> of(Model<S> m, Keep... keep) {
    List<Keep> kept = List.of(keep);
    return new Model<>() {
      @Override
      public String name() {
        return m.name();
      }

      @Override
      public S initialState() {
        return m.initialState();
      }

      @Override
      public Step<S> step(S state, Op op) {
        return m.step(state, op);
      }

      @Override
      public boolean isReadOnly(Op op) {
        return m.isReadOnly(op);
      }

      @Override
      public boolean ignoresState(Op op) {
        return kept.contains(Keep.CUT) ? m.ignoresState(op) : Model.super.ignoresState(op);
      }

      @Override
      public Object requiredState(Op op) {
        return kept.contains(Keep.REQUIRED_STATE) ? m.requiredState(op)
            : Model.super.requiredState(op);
      }

      @Override
      public Object stateAfter(Op op) {
        return kept.contains(Keep.STATE_AFTER) ? m.stateAfter(op) : Model.super.stateAfter(op);
      }

      @Override
      public BitSet droppable(List<Op> ops, int[] called, int[] returned) {
        return kept.contains(Keep.REDUCTION) ? m.droppable(ops, called, returned)
            : Model.super.droppable(ops, called, returned);
      }
    };
  }
}
