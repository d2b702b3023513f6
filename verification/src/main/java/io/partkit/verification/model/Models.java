package io.partkit.verification.model;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/** The built-in models, by constructor and by name. */
public final class Models {
  private Models() {}

  /** The names {@link #named(String, Object)} knows, in the order the docs list them. */
  public static final List<String> NAMES =
      List.of(
          "register",
          "cas-register",
          "multi-register",
          "mutex",
          "set",
          "fifo-queue",
          "unordered-queue",
          "kv");

  /**
   * A read/write register (ops {@code :read}, {@code :write}) with Knossos' reading of nil: an
   * {@code :ok} read of nil constrains nothing ({@link NilReads#KNOSSOS}).
   */
  public static Model<Object> register(Object init) {
    return register(init, NilReads.KNOSSOS);
  }

  /** A read/write register whose {@code :ok} reads of nil mean what {@code nilReads} says. */
  public static Model<Object> register(Object init, NilReads nilReads) {
    return new RegisterModel("register", init, false, nilReads);
  }

  /**
   * A register with compare-and-set (ops {@code :read}, {@code :write}, {@code :cas [old new]})
   * with Knossos' reading of nil ({@link NilReads#KNOSSOS}).
   */
  public static Model<Object> casRegister(Object init) {
    return casRegister(init, NilReads.KNOSSOS);
  }

  /** A compare-and-set register whose {@code :ok} reads of nil mean what {@code nilReads} says. */
  public static Model<Object> casRegister(Object init, NilReads nilReads) {
    return new RegisterModel("cas-register", init, true, nilReads);
  }

  /**
   * Registers named by key, changed by transactions: {@code :txn} with a value like
   * {@code [[:read :x 1] [:write :y 2]]}, applied atomically in order; Knossos' reading of nil
   * ({@link NilReads#KNOSSOS}: {@code [:read :x nil]} constrains nothing).
   *
   * @param init the initial values; registers not in it start as nil
   */
  public static Model<Map<Object, Object>> multiRegister(Map<?, ?> init) {
    return multiRegister(init, NilReads.KNOSSOS);
  }

  /**
   * Registers changed by transactions, whose {@code [:read k nil]} means what {@code nilReads}
   * says.
   */
  public static Model<Map<Object, Object>> multiRegister(Map<?, ?> init, NilReads nilReads) {
    return new MultiRegisterModel(init, nilReads);
  }

  /** A lock (ops {@code :acquire}, {@code :release}), initially free. */
  public static Model<Boolean> mutex() {
    return new MutexModel();
  }

  /**
   * A grow-only set (ops {@code :add x}, {@code :read} returning the whole set), initially empty.
   */
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
    return named(name, init, NilReads.KNOSSOS);
  }

  /**
   * A built-in model by name, with a reading of nil for the register models.
   *
   * @param nilReads what an :ok read of nil means to register, cas-register and multi-register;
   *     the other models have their own meaning of nil and ignore it
   * @throws IllegalArgumentException as {@link #named(String, Object)}
   */
  public static Model<?> named(String name, Object init, NilReads nilReads) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(nilReads, "nilReads");
    switch (name) {
      case "register": return register(init, nilReads);
      case "cas-register": return casRegister(init, nilReads);
      case "multi-register":
        if (init != null && !(init instanceof Map)) {
          throw new IllegalArgumentException(
              "multi-register's initial state must be a map like {:x 0 :y 0}: " + init);
        }
        return multiRegister(init == null ? Map.of() : (Map<?, ?>) init, nilReads);
      case "kv": return kv(init);
      case "mutex": noInit(name, init); return mutex();
      case "set": noInit(name, init); return set();
      case "fifo-queue": noInit(name, init); return fifoQueue();
      case "unordered-queue": noInit(name, init); return unorderedQueue();
      default:
        throw new IllegalArgumentException(
            "unknown model " + name + "; known models: " + String.join(", ", NAMES));
    }
  }

  /**
   * The built-in model a history's client operations ask for, by the functions they use, for a
   * caller that was given none ({@code partkit check --model auto}): {@code txn} is a
   * multi-register; {@code get}, {@code put} or {@code append} a kv store; {@code acquire} or
   * {@code release} a mutex; {@code enqueue} or {@code dequeue} a FIFO queue; {@code add} a set;
   * {@code read}, {@code write} or {@code cas} a cas-register (which also checks a plain
   * register's histories). The first of these that matches wins.
   *
   * @return one of {@link #NAMES}
   * @throws IllegalArgumentException when no function is one of those, naming the functions
   */
  public static String guessName(History history) {
    Objects.requireNonNull(history, "history");
    Set<String> fs = new TreeSet<>();
    for (Op op : history.ops()) {
      if (op.isClient()) {
        fs.add(op.f());
      }
    }
    if (fs.contains("txn")) {
      return "multi-register";
    }
    if (fs.contains("get") || fs.contains("append") || fs.contains("put")) {
      return "kv";
    }
    if (fs.contains("acquire") || fs.contains("release")) {
      return "mutex";
    }
    if (fs.contains("enqueue") || fs.contains("dequeue")) {
      return "fifo-queue";
    }
    if (fs.contains("add")) {
      return "set";
    }
    if (fs.contains("read") || fs.contains("write") || fs.contains("cas")) {
      return "cas-register";
    }
    throw new IllegalArgumentException(
        "cannot guess the model from the functions " + fs + ": name one of " + String.join(", ",
            NAMES));
  }

  private static void noInit(String name, Object init) {
    if (init != null) {
      throw new IllegalArgumentException(
          name + " starts empty and takes no initial state: " + init);
    }
  }

  static String show(Object v) {
    return io.partkit.verification.history.Values.toEdn(v);
  }
}
