package io.partkit.verification.history;

import java.util.List;
import java.util.Map;

/**
 * Turns one normalised operation form (from EDN or JSON) into an {@link Op}: a map, or Knossos'
 * test tuple {@code [process type f value]}. Shared by the readers.
 */
final class OpMaps {
  private OpMaps() {}

  static final String EXAMPLE = "{:process 0, :type :invoke, :f :read, :value nil}";

  static final String TUPLE_EXAMPLE = "[0 :invoke :read nil]";

  static Op toOp(Object form, long position, int line, String source) throws HistoryParseException {
    if (form instanceof List && ((List<?>) form).size() == TUPLE.length) {
      form = tupleMap((List<?>) form);
    }
    if (!(form instanceof Map)) {
      throw new HistoryParseException(
          source,
          line,
          "expected an operation map like "
              + EXAMPLE
              + " or a tuple like "
              + TUPLE_EXAMPLE
              + ", got "
              + describe(form));
    }
    Map<?, ?> m = (Map<?, ?>) form;
    Object process = m.get("process");
    if (process == null) {
      throw new HistoryParseException(
          source,
          line,
          "expected a :process (a client's id such as 0 or \"client-1\", or :nemesis) in "
              + Values.toEdn(m));
    }
    if (process instanceof Double || process instanceof Map || process instanceof Iterable) {
      throw new HistoryParseException(
          source,
          line,
          "expected :process to be a client's id (a number or a name) or :nemesis, got "
              + Values.toEdn(process));
    }
    Object type = m.get("type");
    if (!(type instanceof String)) {
      throw new HistoryParseException(
          source,
          line,
          "expected :type to be one of :invoke, :ok, :fail, :info in " + Values.toEdn(m));
    }
    if (OpType.find((String) type) == null) {
      throw new HistoryParseException(
          source,
          line,
          "expected :type to be one of :invoke, :ok, :fail, :info, got " + Values.toEdn(type));
    }
    Object f = m.get("f");
    if (!(f instanceof String) || ((String) f).isEmpty()) {
      throw new HistoryParseException(
          source, line, "expected :f to be a keyword such as :read, in " + Values.toEdn(m));
    }
    Object idx = m.get("index");
    Object t = m.get("time");
    return ofFields(process, type, f, m.get("value"), m.get("key"),
        idx instanceof Long ? (Long) idx : position, t instanceof Long ? (Long) t : -1, line,
        false);
  }

  /**
   * The operation of these fields, or null when one is not what {@link #toOp} accepts (toOp says
   * why): the fast reader's way to the same Op without building the map. {@code index} is the
   * {@code :index} when it is a Long, else the position; {@code time} the {@code :time} when it
   * is a Long, else -1; {@code interned}: the function's name is interned already.
   */
  static Op ofFields(Object process, Object type, Object f, Object value, Object key,
      long index, long time, int line, boolean interned) {
    OpType opType = typeOf(process, type, f);
    if (opType == null) {
      return null;
    }
    return new Op(index, process, opType, function((String) f, interned), value, key, time, line);
  }

  /**
   * The type of an operation of these fields, or null when one is not what {@link #toOp} accepts
   * (when it is not null, {@code f} is a non-empty String).
   */
  static OpType typeOf(Object process, Object type, Object f) {
    if (process == null || process instanceof Double || process instanceof Map
        || process instanceof Iterable || !(type instanceof String) || !(f instanceof String)
        || ((String) f).isEmpty()) {
      return null;
    }
    return OpType.find((String) type);
  }

  /** The function's name as an operation keeps it; {@code interned}: interned already. */
  static String function(String f, boolean interned) {
    String fn = f;
    // interned, as JepsenLogReader does: a history names a handful of functions, and the checker
    // compares them often; the readers of bytes give interned names already (String.intern is a
    // lookup in the JVM's table: a tenth of reading an operation)
    if (fn.startsWith(":")) {
      fn = fn.substring(1).intern();
    } else if (!interned) {
      fn = fn.intern();
    }
    return fn;
  }

  private static final String[] TUPLE = {"process", "type", "f", "value"};

  /** Knossos' tuple as the map it stands for, so one set of checks and messages serves both. */
  private static Map<String, Object> tupleMap(List<?> tuple) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < TUPLE.length; i++) {
      m.put(TUPLE[i], tuple.get(i));
    }
    return m;
  }

  static String describe(Object form) {
    String s = Values.toEdn(form);
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }
}
