package io.partkit.verification.history;

import java.util.Objects;

/**
 * One history event in the Jepsen/Knossos sense.
 *
 * <p>Values are plain Java values, whatever format they were read from: {@code null} (EDN
 * {@code nil}), {@link Long} for integers, {@link Double}, {@link String} (EDN keywords become
 * their name without the colon, so {@code :x} and {@code "x"} are the same value), {@link Boolean},
 * unmodifiable {@link java.util.List}s for vectors and lists, {@link java.util.Set}s and
 * {@link java.util.Map}s.
 *
 * @param index position in the history (the {@code :index} field when present, else the order read)
 * @param process the process: any value (an integer as Jepsen numbers its clients, or a name such
 *     as {@code "client-1"}); only Jepsen's nemesis, {@code :nemesis} (read as {@link #NEMESIS}),
 *     is not a client: its events are drawn but not checked
 * @param type invoke, ok, fail or info
 * @param f the function, e.g. {@code read}, {@code write}, {@code cas}
 * @param value the value (for a completion, what the operation returned)
 * @param key the optional {@code :key}; histories with keys are checked key by key, or {@code null}
 * @param time the optional {@code :time} in nanoseconds, or -1
 * @param line the line of the source file the event came from, or 0 when not read from a file
 */
public record Op(
    long index,
    Object process,
    OpType type,
    String f,
    Object value,
    Object key,
    long time,
    int line) {

  public Op {
    Objects.requireNonNull(process, "process");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(f, "f");
  }

  /** A client event without key, time or line: handy in tests and for programmatic histories. */
  public static Op of(long index, long process, OpType type, String f, Object value) {
    return new Op(index, process, type, f, value, null, -1, 0);
  }

  /**
   * The process Jepsen runs its nemesis as ({@code :nemesis}, a keyword; {@code "nemesis"} from
   * JSON reads the same).
   */
  public static final String NEMESIS = "nemesis";

  /**
   * True when the operation is checked: for every process but the nemesis. Why any value: Knossos
   * treats whatever {@code :process} holds as a process id and checks its operations (Jepsen hands
   * it the whole history; its nemesis logs only {@code :info} events, which Knossos passes over),
   * and other tools name their clients ({@code "client-1"}). Numbering clients is Jepsen's
   * convention, not a rule: a checker that skipped named processes would call a history it never
   * looked at valid.
   */
  public boolean isClient() {
    return !NEMESIS.equals(process);
  }

  /** The same event with another value. */
  public Op withValue(Object newValue) {
    return new Op(index, process, type, f, newValue, key, time, line);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("{:process ").append(Values.toEdn(process))
        .append(", :type :").append(type.jepsenName())
        .append(", :f :").append(f)
        .append(", :value ").append(Values.toEdn(value));
    if (key != null) {
      sb.append(", :key ").append(Values.toEdn(key));
    }
    sb.append(", :index ").append(index);
    if (line > 0) {
      sb.append(", :line ").append(line);
    }
    return sb.append('}').toString();
  }
}
