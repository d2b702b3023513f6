package io.partkit.verification.model;

import java.util.function.Supplier;

/**
 * What a model's step returns: the next state, or an inconsistency with a message.
 *
 * @param <S> the state type
 */
public sealed interface Step<S> permits Step.Next, Step.Inconsistent {

  /** The operation was legal: the model moves to {@code state}. */
  record Next<S>(S state) implements Step<S> {}

  /**
   * The operation is not legal in this state. The message is computed only when shown: the
   * search tries many illegal steps and most messages are never read.
   */
  record Inconsistent<S>(Supplier<String> reason) implements Step<S> {
    public String message() {
      return reason.get();
    }
  }

  static <S> Step<S> next(S state) {
    return new Next<>(state);
  }

  static <S> Step<S> inconsistent(String message) {
    return new Inconsistent<>(() -> message);
  }

  static <S> Step<S> inconsistent(Supplier<String> message) {
    return new Inconsistent<>(message);
  }
}
