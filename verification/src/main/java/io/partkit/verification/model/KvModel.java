package io.partkit.verification.model;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.history.Values;
import java.util.Objects;

/**
 * kv: one string per key with {@code :get}, {@code :put}, {@code :append}, like the key-value
 * histories in Porcupine's test data. The checker splits a history by {@code :key}, so the state
 * is the one key's string; an absent key reads as {@code ""} and a get of nil equals a get of "".
 */
final class KvModel implements Model<KvModel.Value> {
  private static final Value EMPTY = new Value("", 0);
  private final Value init;

  KvModel(String init) {
    this.init = new Value(init, init.hashCode());
  }

  /**
   * The state: a string with its hash code maintained incrementally. Appends make long strings
   * and the search hashes every new state; String would rehash all of it each time.
   */
  static final class Value {
    final String text;
    final int hash;

    Value(String text, int hash) {
      this.text = text;
      this.hash = hash;
    }

    Value append(String suffix) {
      int h = hash;
      for (int i = 0; i < suffix.length(); i++) {
        h = 31 * h + suffix.charAt(i); // String.hashCode's polynomial, continued
      }
      return new Value(text.concat(suffix), h);
    }

    @Override
    public boolean equals(Object o) {
      return o == this
          || (o instanceof Value && ((Value) o).hash == hash && ((Value) o).text.equals(text));
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public String toString() {
      return Values.toEdn(text);
    }
  }

  @Override
  public String name() {
    return "kv";
  }

  @Override
  public Value initialState() {
    return init;
  }

  @Override
  public Step<Value> step(Value state, Op op) {
    String v = Objects.toString(op.value(), "");
    String f = op.f();
    // an if-chain, not a string switch: the search calls this millions of times
    if (f.equals("get")) {
      if (op.type() == OpType.INFO || state.text.equals(v)) {
        return Step.next(state);
      }
      return Step.inconsistent(() -> "get " + Models.show(v) + " but the key holds " + state);
    }
    if (f.equals("append")) {
      return Step.next(state.append(v));
    }
    if (f.equals("put")) {
      return Step.next(EMPTY.append(v)); // hashed like String, without touching the shared String
    }
    return Step.inconsistent(
        () -> "kv has no operation :" + op.f() + " (it has :get, :put, :append)");
  }

  @Override
  public boolean isReadOnly(Op op) {
    return "get".equals(op.f());
  }

  @Override
  public String toString() {
    return "(kv " + init + ")";
  }
}
