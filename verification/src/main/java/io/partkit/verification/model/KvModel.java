package io.partkit.verification.model;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.Objects;

/**
 * kv: one string per key with {@code :get}, {@code :put}, {@code :append}, like the key-value
 * histories in Porcupine's test data. The checker splits a history by {@code :key}, so the state
 * is the one key's string; an absent key reads as {@code ""} and a get of nil equals a get of "".
 */
final class KvModel implements Model<String> {
  private final String init;

  KvModel(String init) {
    this.init = init;
  }

  @Override
  public String name() {
    return "kv";
  }

  @Override
  public String initialState() {
    return init;
  }

  @Override
  public Step<String> step(String state, Op op) {
    String v = Objects.toString(op.value(), "");
    switch (op.f()) {
      case "get":
        if (op.type() == OpType.INFO || state.equals(v)) {
          return Step.next(state);
        }
        return Step.inconsistent(() -> "get " + Models.show(v) + " but the key holds " + Models.show(state));
      case "put":
        return Step.next(v);
      case "append":
        return Step.next(state.concat(v));
      default:
        return Step.inconsistent(() -> "kv has no operation :" + op.f() + " (it has :get, :put, :append)");
    }
  }

  @Override
  public String toString() {
    return "(kv " + Models.show(init) + ")";
  }
}
