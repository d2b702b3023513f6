package io.partkit.verification.model;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The built-in models, by constructor and by name. */
public final class Models {
  private Models() {}

  /** The names {@link #named(String, Object)} knows, in the order the docs list them. */
  public static final List<String> NAMES =
      List.of("register", "cas-register", "multi-register", "mutex", "set", "fifo-queue", "unordered-queue", "kv");

  /** A read/write register (ops {@code :read}, {@code :write}). */
  public static Model<Object> register(Object init) {
    return new RegisterModel("register", init, false);
  }

  /** A register with compare-and-set (ops {@code :read}, {@code :write}, {@code :cas [old new]}). */
  public static Model<Object> casRegister(Object init) {
    return new RegisterModel("cas-register", init, true);
  }

  /**
   * Registers named by key, changed by transactions: {@code :txn} with a value like
   * {@code [[:read :x 1] [:write :y 2]]}, applied atomically in order.
   *
   * @param init the initial values; registers not in it start as nil
   */
  public static Model<Map<Object, Object>> multiRegister(Map<?, ?> init) {
    return new MultiRegisterModel(init);
  }

  /** A lock (ops {@code :acquire}, {@code :release}), initially free. */
  public static Model<Boolean> mutex() {
    return new MutexModel();
  }

  /** A grow-only set (ops {@code :add x}, {@code :read} returning the whole set), initially empty. */
  public static Model<?> set() {
    return new SetModel();
  }

  /** A FIFO queue (ops {@code :enqueue x}, {@code :dequeue} returning x), initially empty. */
  public static Model<?> fifoQueue() {
    return new FifoQueueModel();
  }

  /** A queue that dequeues any element (a multiset), initially empty. */
  public static Model<?> unorderedQueue() {
    return new UnorderedQueueModel();
  }

  /**
   * A string value per key (ops {@code :get}, {@code :put}, {@code :append}); with
   * P-compositionality each key is checked alone, so the state is one string.
   *
   * @param init the initial value of every key; nil means {@code ""}
   */
  public static Model<?> kv(Object init) {
    return new KvModel(init == null ? "" : init.toString());
  }

  /**
   * A built-in model by name.
   *
   * @param init the initial state for models that have one (registers, multi-register, kv); for
   *     the others it must be nil
   * @throws IllegalArgumentException for an unknown name (the message lists the known ones) or
   *     an initial state the model cannot take
   */
  public static Model<?> named(String name, Object init) {
    Objects.requireNonNull(name, "name");
    switch (name) {
      case "register": return register(init);
      case "cas-register": return casRegister(init);
      case "multi-register":
        if (init != null && !(init instanceof Map)) {
          throw new IllegalArgumentException("multi-register's initial state must be a map like {:x 0 :y 0}: " + init);
        }
        return multiRegister(init == null ? Map.of() : (Map<?, ?>) init);
      case "kv": return kv(init);
      case "mutex": noInit(name, init); return mutex();
      case "set": noInit(name, init); return set();
      case "fifo-queue": noInit(name, init); return fifoQueue();
      case "unordered-queue": noInit(name, init); return unorderedQueue();
      default:
        throw new IllegalArgumentException("unknown model " + name + "; known models: " + String.join(", ", NAMES));
    }
  }

  private static void noInit(String name, Object init) {
    if (init != null) {
      throw new IllegalArgumentException(name + " starts empty and takes no initial state: " + init);
    }
  }

  static String show(Object v) {
    return io.partkit.verification.history.Values.toEdn(v);
  }
}
