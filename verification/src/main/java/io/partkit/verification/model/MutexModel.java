package io.partkit.verification.model;

import io.partkit.verification.history.Op;

/** mutex: the state is true while held. */
final class MutexModel implements Model<Boolean> {
  @Override
  public String name() {
    return "mutex";
  }

  @Override
  public Boolean initialState() {
    return Boolean.FALSE;
  }

  @Override
  public Step<Boolean> step(Boolean held, Op op) {
    switch (op.f()) {
      case "acquire":
        return held ? Step.inconsistent("cannot acquire a held lock") : Step.next(Boolean.TRUE);
      case "release":
        return held ? Step.next(Boolean.FALSE) : Step.inconsistent("cannot release a free lock");
      default:
        return Step.inconsistent(
            () -> "mutex has no operation :" + op.f() + " (it has :acquire, :release)");
    }
  }

  @Override
  public String toString() {
    return "(mutex)";
  }
}
