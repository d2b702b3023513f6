package io.partkit.verification.checker;

import io.partkit.verification.history.Op;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Step;
import java.util.List;

/** Replays a sequence of operations through a model: true when every step is legal. */
final class Replay {
  private Replay() {}

  @SuppressWarnings("unchecked")
  static boolean replays(Model<?> m, List<Op> ops) {
    Model<Object> model = (Model<Object>) m;
    Object state = model.initialState();
    for (Op op : ops) {
      Step<Object> s = model.step(state, op);
      if (!(s instanceof Step.Next)) {
        return false;
      }
      state = ((Step.Next<Object>) s).state();
    }
    return true;
  }
}
