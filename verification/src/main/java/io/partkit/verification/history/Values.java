package io.partkit.verification.history;

import clojure.lang.BigInt;
import clojure.lang.Keyword;
import clojure.lang.Named;
import clojure.lang.Ratio;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Normalises values read by the EDN, JSON and log readers into the plain Java values of
 * {@link Op}, reads one such value from EDN text, and prints them back as EDN. Keeping one
 * representation means the models never see Clojure or Jackson types, and {@code :x} read from
 * EDN equals {@code "x"} read from JSON.
 */
public final class Values {
  private Values() {}

  /**
   * Reads one EDN value, such as a model's initial state given on a command line, as a history's
   * values are read: by the same reader, to the same plain values ({@code {:x 0}} is
   * {@code Map.of("x", 0L)}), with the same bounds on input (at most 1000 digits per number, so
   * that a huge integer cannot take minutes to read).
   *
   * @param source names the text in messages, e.g. {@code "--init"}
   * @throws HistoryParseException when the text is blank, not valid EDN, more than one value, or
   *     beyond the bounds; the message starts with {@code source:line:}, says what was expected
   *     and the column where reading stopped
   */
  public static Object fromEdn(String source, String text) throws HistoryParseException {
    return EdnHistoryReader.readValue(source, text);
  }

  /**
   * Converts a value from Clojure's EDN reader (or any plain Java value) to the normal form.
   *
   * @throws IllegalArgumentException for a value type a history cannot hold
   */
  public static Object normalize(Object v) {
    if (v == null
        || v instanceof String
        || v instanceof Boolean
        || v instanceof Long
        || v instanceof Double) {
      return v;
    }
    if (v instanceof Keyword) {
      return name((Keyword) v);
    }
    if (v instanceof Named) { // symbols
      Named n = (Named) v;
      return n.getNamespace() == null ? n.getName() : n.getNamespace() + "/" + n.getName();
    }
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Float) {
      return ((Float) v).doubleValue();
    }
    if (v instanceof BigInt) {
      return bigInteger(((BigInt) v).toBigInteger());
    }
    if (v instanceof BigInteger) {
      return bigInteger((BigInteger) v);
    }
    if (v instanceof BigDecimal) {
      return v;
    }
    if (v instanceof Ratio) {
      return ((Ratio) v).doubleValue();
    }
    if (v instanceof Character) {
      return v.toString();
    }
    if (v instanceof TaggedValue) {
      return v;
    }
    if (v instanceof Map) {
      Map<Object, Object> m = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        m.put(normalize(e.getKey()), normalize(e.getValue()));
      }
      return Collections.unmodifiableMap(m);
    }
    if (v instanceof Set) {
      Set<Object> s = new LinkedHashSet<>();
      for (Object o : (Set<?>) v) {
        s.add(normalize(o));
      }
      return Collections.unmodifiableSet(s);
    }
    if (v instanceof Iterable) { // vectors, lists, seqs
      List<Object> l = new ArrayList<>();
      for (Object o : (Iterable<?>) v) {
        l.add(normalize(o));
      }
      return Collections.unmodifiableList(l);
    }
    throw new IllegalArgumentException(
        "unsupported value type " + v.getClass().getName() + ": " + v);
  }

  private static String name(Keyword k) {
    return k.getNamespace() == null ? k.getName() : k.getNamespace() + "/" + k.getName();
  }

  private static Object bigInteger(BigInteger b) {
    return b.bitLength() < 64 ? (Object) b.longValue() : b;
  }

  /** Prints a normalised value as EDN (strings quoted, collections as vectors, sets and maps). */
  public static String toEdn(Object v) {
    StringBuilder sb = new StringBuilder();
    appendEdn(sb, v);
    return sb.toString();
  }

  private static void appendEdn(StringBuilder sb, Object v) {
    if (v == null) {
      sb.append("nil");
    } else if (v instanceof String) {
      sb.append('"');
      String s = (String) v;
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c == '"' || c == '\\') {
          sb.append('\\').append(c);
        } else if (c == '\n') {
          sb.append("\\n");
        } else {
          sb.append(c);
        }
      }
      sb.append('"');
    } else if (v instanceof Map) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        appendEdn(sb, e.getKey());
        sb.append(' ');
        appendEdn(sb, e.getValue());
      }
      sb.append('}');
    } else if (v instanceof Set) {
      sb.append("#{");
      appendAll(sb, (Set<?>) v);
      sb.append('}');
    } else if (v instanceof TaggedValue) {
      sb.append('#').append(((TaggedValue) v).tag()).append(' ');
      appendEdn(sb, ((TaggedValue) v).value());
    } else if (v instanceof Iterable) {
      sb.append('[');
      appendAll(sb, (Iterable<?>) v);
      sb.append(']');
    } else {
      sb.append(v);
    }
  }

  private static void appendAll(StringBuilder sb, Iterable<?> items) {
    boolean first = true;
    for (Object o : items) {
      if (!first) {
        sb.append(' ');
      }
      first = false;
      appendEdn(sb, o);
    }
  }
}
