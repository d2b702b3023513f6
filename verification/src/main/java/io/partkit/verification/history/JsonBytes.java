package io.partkit.verification.history;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one JSON-lines operation straight from its bytes, to the Op that
 * {@link JsonLinesReader}'s Jackson path makes of it: strings, integers of up to 18 digits, true,
 * false, null, arrays and objects. Exact by refusing, as {@link EdnBytes} is: a decimal, a
 * {@code \\u} escape, a duplicate key, text after the object, bytes that are not UTF-8, anything
 * malformed, or fields that are not an operation give null, and the line goes to the Jackson
 * path, which reads it or names the error as it always did.
 */
final class JsonBytes {
  private static final int MAX_DEPTH = 64;
  private static final int SHORT = 32; // strings up to this many bytes are looked up, not built

  private static final String[] FIELDS = {"process", "type", "f", "value", "key", "index", "time"};
  private static final byte[][] FIELD_BYTES = new byte[FIELDS.length][];

  static {
    for (int i = 0; i < FIELDS.length; i++) {
      FIELD_BYTES[i] = FIELDS[i].getBytes(StandardCharsets.US_ASCII);
    }
  }

  private final NameTable names = new NameTable();
  private final LongBoxes boxes = new LongBoxes();
  private final Object[] fields = new Object[FIELDS.length];
  private byte[] b;
  private int pos;
  private int end;

  /** The operation on {@code b[from, to)} (a trimmed line), or null: the Jackson path's line. */
  Op op(byte[] bytes, int from, int to, long position, int line) {
    b = bytes;
    pos = from;
    end = to;
    java.util.Arrays.fill(fields, null);
    int seen = 0;
    try {
      if (next() != '{') {
        return null;
      }
      pos++;
      if (next() == '}') {
        return null; // no fields
      }
      while (true) {
        if (next() != '"') {
          return null;
        }
        int field = fieldName();
        if (next() != ':') {
          return null;
        }
        pos++;
        next();
        Object v = value(1);
        if (field >= 0) {
          if ((seen & (1 << field)) != 0) {
            return null; // a duplicate: Jackson keeps the last one, the Jackson path decides
          }
          seen |= 1 << field;
          fields[field] = v;
        }
        int c = next();
        pos++;
        if (c == '}') {
          break;
        }
        if (c != ',') {
          return null;
        }
        next();
      }
      if (pos != end) {
        return null; // more after the object
      }
    } catch (EdnBytes.Surprise e) {
      return null;
    }
    // a short name is interned by the NameTable; a long one is equal, if not identical
    return OpMaps.ofFields(fields[0], fields[1], fields[2], fields[3], fields[4],
        fields[5] instanceof Long ? (Long) fields[5] : position,
        fields[6] instanceof Long ? (Long) fields[6] : -1, line, true);
  }

  /** Skips JSON whitespace; the next byte (not consumed), or a surprise at the end. */
  private int next() {
    while (pos < end) {
      int c = b[pos];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return c;
      }
      pos++;
    }
    throw EdnBytes.SURPRISE;
  }

  /** A key: the index of the operation field it names, or -1 (after reading it as a string). */
  private int fieldName() {
    int start = pos + 1;
    int close = start;
    while (close < end && b[close] != '"' && b[close] != '\\' && b[close] >= 0x20) {
      close++;
    }
    if (close < end && b[close] == '"') {
      int len = close - start;
      for (int i = 0; i < FIELD_BYTES.length; i++) {
        if (FIELD_BYTES[i].length == len
            && java.util.Arrays.equals(FIELD_BYTES[i], 0, len, b, start, close)) {
          pos = close + 1;
          return i;
        }
      }
    }
    string();
    return -1;
  }

  private Object value(int depth) {
    if (depth > MAX_DEPTH) {
      throw EdnBytes.SURPRISE;
    }
    int c = next();
    switch (c) {
      case '"':
        return string();
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case 't':
        literal("true");
        return Boolean.TRUE;
      case 'f':
        literal("false");
        return Boolean.FALSE;
      case 'n':
        literal("null");
        return null;
      default:
        return number();
    }
  }

  private void literal(String word) {
    for (int i = 0; i < word.length(); i++) {
      if (pos >= end || b[pos] != word.charAt(i)) {
        throw EdnBytes.SURPRISE;
      }
      pos++;
    }
    delimiter();
  }

  /** What may follow a number or a literal. */
  private void delimiter() {
    if (pos < end) {
      int c = b[pos];
      if (c != ',' && c != '}' && c != ']' && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        throw EdnBytes.SURPRISE;
      }
    }
  }

  private Long number() {
    boolean negative = false;
    if (pos < end && b[pos] == '-') {
      negative = true;
      pos++;
    }
    int from = pos;
    long v = 0;
    while (pos < end && b[pos] >= '0' && b[pos] <= '9') {
      v = v * 10 + (b[pos] - '0');
      pos++;
    }
    int digits = pos - from;
    if (digits == 0 || digits > 18 || (digits > 1 && b[from] == '0')) {
      throw EdnBytes.SURPRISE; // not a number, a long one, or a leading zero
    }
    delimiter(); // a '.', 'e' or 'E' (a decimal) is not one
    return boxes.box(negative ? -v : v);
  }

  private String string() {
    pos++; // '"'
    int start = pos;
    boolean ascii = true;
    StringBuilder escaped = null;
    while (true) {
      if (pos >= end) {
        throw EdnBytes.SURPRISE;
      }
      int c = b[pos];
      if (c == '"') {
        break;
      }
      if (c == '\\') {
        if (!ascii) {
          throw EdnBytes.SURPRISE;
        }
        if (escaped == null) {
          escaped = new StringBuilder(pos - start + 16);
          escaped.append(new String(b, start, pos - start, StandardCharsets.ISO_8859_1));
        }
        if (++pos >= end) {
          throw EdnBytes.SURPRISE;
        }
        char x;
        switch (b[pos]) {
          case '"': x = '"'; break;
          case '\\': x = '\\'; break;
          case '/': x = '/'; break;
          case 'b': x = '\b'; break;
          case 'f': x = '\f'; break;
          case 'n': x = '\n'; break;
          case 'r': x = '\r'; break;
          case 't': x = '\t'; break;
          default: throw EdnBytes.SURPRISE; // \\u and anything else
        }
        escaped.append(x);
        pos++;
        continue;
      }
      if (c >= 0 && c < 0x20) {
        throw EdnBytes.SURPRISE; // a control character: Jackson refuses it
      }
      if (c < 0) {
        if (escaped != null) {
          throw EdnBytes.SURPRISE;
        }
        ascii = false;
      } else if (escaped != null) {
        escaped.append((char) c);
      }
      pos++;
    }
    int close = pos;
    pos++;
    if (escaped != null) {
      return escaped.toString();
    }
    if (ascii) {
      return close - start <= SHORT
          ? names.get(b, start, close - start)
          : new String(b, start, close - start, StandardCharsets.ISO_8859_1);
    }
    String s = new String(b, start, close - start, StandardCharsets.UTF_8);
    if (s.indexOf('\uFFFD') >= 0) {
      throw EdnBytes.SURPRISE;
    }
    return s;
  }

  private Map<Object, Object> object(int depth) {
    pos++; // '{'
    Map<Object, Object> m = new LinkedHashMap<>();
    if (next() == '}') {
      pos++;
      return Collections.unmodifiableMap(m);
    }
    while (true) {
      if (next() != '"') {
        throw EdnBytes.SURPRISE;
      }
      String k = string();
      if (next() != ':') {
        throw EdnBytes.SURPRISE;
      }
      pos++;
      Object v = value(depth + 1);
      if (m.containsKey(k)) {
        throw EdnBytes.SURPRISE;
      }
      m.put(k, v);
      int c = next();
      pos++;
      if (c == '}') {
        return Collections.unmodifiableMap(m);
      }
      if (c != ',') {
        throw EdnBytes.SURPRISE;
      }
    }
  }

  private List<Object> array(int depth) {
    pos++; // '['
    List<Object> l = new ArrayList<>(4);
    if (next() == ']') {
      pos++;
      return Collections.unmodifiableList(l);
    }
    while (true) {
      l.add(value(depth + 1));
      int c = next();
      pos++;
      if (c == ']') {
        // one or two values (Jepsen's [k v]) in a compact list, as EdnBytes does
        return l.size() == 1 ? ShortList.of(l.get(0))
            : l.size() == 2 ? ShortList.of(l.get(0), l.get(1)) : Collections.unmodifiableList(l);
      }
      if (c != ',') {
        throw EdnBytes.SURPRISE;
      }
    }
  }
}
