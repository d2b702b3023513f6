package io.partkit.verification.history;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes histories in the formats the readers read, so that what is written reads back equal. */
final class HistoryWriter {
  private HistoryWriter() {}

  private static final ObjectMapper MAPPER = new ObjectMapper();

  static String write(History h, Histories.Format format) {
    StringBuilder sb = new StringBuilder();
    for (Op op : h.ops()) {
      switch (format) {
        case EDN:
          sb.append(edn(op));
          break;
        case JSON_LINES:
          sb.append(json(op));
          break;
        default:
          sb.append("INFO  jepsen.util - ")
              .append(logProcess(op))
              .append('\t')
              .append(':')
              .append(op.type().jepsenName())
              .append('\t')
              .append(':')
              .append(op.f())
              .append('\t')
              .append(Values.toEdn(op.value()));
          break;
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private static String edn(Op op) {
    StringBuilder sb = new StringBuilder("{:index ").append(op.index())
        .append(", :process ").append(ednProcess(op))
        .append(", :type :").append(op.type().jepsenName())
        .append(", :f :").append(op.f())
        .append(", :value ").append(Values.toEdn(op.value()));
    if (op.key() != null) {
      sb.append(", :key ").append(Values.toEdn(op.key()));
    }
    if (op.time() >= 0) {
      sb.append(", :time ").append(op.time());
    }
    return sb.append('}').toString();
  }

  /** The nemesis as Jepsen writes it, a keyword; any other process as the EDN value it is. */
  private static String ednProcess(Op op) {
    return op.isClient() ? Values.toEdn(op.process()) : ":" + Op.NEMESIS;
  }

  /**
   * A Jepsen log's process token: a number, {@code :nemesis}, or a name that reads back as itself
   * (the log reader takes a token that is not a number as a name, without a leading colon).
   */
  private static String logProcess(Op op) {
    if (!op.isClient()) {
      return ":" + Op.NEMESIS;
    }
    Object p = op.process();
    String token = String.valueOf(p);
    boolean readsBack = p instanceof Long
        || (p instanceof String && !token.isEmpty() && !token.startsWith(":")
            && token.chars().noneMatch(Character::isWhitespace) && !isLong(token));
    if (!readsBack) {
      throw new IllegalArgumentException(
          "a Jepsen log line cannot hold the process " + Values.toEdn(p) + " of " + op
              + " (a number or a name without blanks); write EDN or JSON lines");
    }
    return token;
  }

  private static boolean isLong(String s) {
    try {
      Long.parseLong(s);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String json(Op op) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("index", op.index());
    m.put("process", op.process());
    m.put("type", op.type().jepsenName());
    m.put("f", op.f());
    m.put("value", jsonValue(op.value()));
    if (op.key() != null) {
      m.put("key", jsonValue(op.key()));
    }
    if (op.time() >= 0) {
      m.put("time", op.time());
    }
    try {
      return MAPPER.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write as JSON: " + op, e);
    }
  }

  /**
   * JSON has no sets and only string keys: sets become arrays, map keys their EDN text unless
   * strings.
   */
  private static Object jsonValue(Object v) {
    if (v instanceof Map) {
      Map<String, Object> m = new LinkedHashMap<>();
      ((Map<?, ?>) v)
          .forEach(
              (k, x) -> m.put(k instanceof String ? (String) k : Values.toEdn(k), jsonValue(x)));
      return m;
    }
    if (v instanceof Collection) {
      List<Object> l = new ArrayList<>();
      for (Object o : (Collection<?>) v) {
        l.add(jsonValue(o));
      }
      return l;
    }
    return v;
  }
}
