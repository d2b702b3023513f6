package io.partkit.verification.history;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the EDN that histories are made of straight from UTF-8 bytes, to the values
 * {@link Values#normalize} makes of what Clojure's reader reads: nil, booleans, integers of up to
 * 18 digits, decimals, strings, keywords without a namespace, vectors, lists, maps of up to 8
 * entries, and a record's tag before a map. Why: Clojure's reader, fed through a decoder and a
 * line-numbering reader one character at a time, read histories at 10-13 MB/s; this reads them
 * at the speed of the disk.
 *
 * <p>It is exact by refusing: anything else it meets (a set, a symbol, a character, a tag before
 * something else, a number with a suffix or of 19 digits and more, a string with a {@code \\u}
 * escape or a carriage return, a map of 9 entries or more whose order would be a hash's, a
 * duplicate key, bytes that are not UTF-8, malformed text) throws {@link #SURPRISE}, and the caller
 * hands that form to the general reader, which reads it or names the error as it always did. A
 * surprise is never an error message of its own. {@code EdnBytesDifferentialTest} holds the two
 * readers to the same values.
 *
 * <p>Lines are counted as {@link java.io.LineNumberReader} counts them (under Clojure's reader):
 * {@code \n}, {@code \r\n} and a lone {@code \r} each end one.
 */
final class EdnBytes {
  /** Thrown where the general reader must take over; carries no stack (thrown often enough). */
  static final class Surprise extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private Surprise() {
      super("a form for the general reader", null, false, false);
    }
  }

  /** Thrown when the bytes end inside a form and more may follow: read more, then try again. */
  static final class NeedMore extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private NeedMore() {
      super("more input needed", null, false, false);
    }
  }

  static final Surprise SURPRISE = new Surprise();
  static final NeedMore NEED_MORE = new NeedMore();

  /** Deeper nesting goes to the general reader (which says "nested too deeply" past its stack). */
  private static final int MAX_DEPTH = 64;

  /** A keyword or symbol longer than this goes to the general reader (and its digit bound). */
  private static final int MAX_TOKEN = 256;

  /** Clojure's array maps keep their entries' order up to 8; bigger maps are hash-ordered. */
  private static final int MAX_ORDERED_MAP = 8;

  byte[] buf;
  int pos;
  int lim;
  /** True when nothing follows lim: the end of a form there is the end of the input. */
  boolean atEnd;
  /** The line at pos, counted as LineNumberReader counts. */
  int line;

  private final NameTable names = new NameTable();
  private final LongBoxes boxes = new LongBoxes();

  /** Skips whitespace, commas and comments; the next byte (not consumed), or -1 at the end. */
  int skipBlank() {
    byte[] b = buf;
    while (true) {
      if (pos >= lim) {
        if (atEnd) {
          return -1;
        }
        throw NEED_MORE;
      }
      int c = b[pos];
      if (c == ' ' || c == ',' || c == '\t') {
        pos++;
      } else if (c == '\n') {
        if (pos == 0 || b[pos - 1] != '\r') {
          line++;
        }
        pos++;
      } else if (c == '\r') {
        line++;
        pos++;
      } else if (c == ';') {
        while (true) {
          if (pos >= lim) {
            if (atEnd) {
              return -1;
            }
            throw NEED_MORE;
          }
          c = b[pos];
          if (c == '\n' || c == '\r') {
            break; // the line end is counted above
          }
          if (c < 0) {
            throw SURPRISE; // not ASCII: the decoder's business
          }
          pos++;
        }
      } else if (c == 0x0B || c == '\f' || (c >= 0x1C && c <= 0x1F)) {
        pos++; // Character.isWhitespace
      } else {
        return c;
      }
    }
  }

  private int peek() {
    if (pos >= lim) {
      if (atEnd) {
        throw SURPRISE; // a form cut short: the general reader names it
      }
      throw NEED_MORE;
    }
    return buf[pos];
  }

  /** One value, normalised; pos at its first byte. */
  Object value(int depth) {
    if (depth > MAX_DEPTH) {
      throw SURPRISE;
    }
    int c = peek();
    switch (c) {
      case '{':
        return map(depth);
      case '[':
        pos++;
        return sequence(']', depth, false);
      case '(':
        pos++;
        return sequence(')', depth, false);
      case '"':
        return string();
      case ':':
        return keyword();
      case '#':
        return tagged(depth);
      default:
        if ((c >= '0' && c <= '9') || c == '-' || c == '+') {
          return number();
        }
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
          return symbol();
        }
        throw SURPRISE;
    }
  }

  /**
   * A tag: a record ({@code #jepsen.history.Op{...}}) reads as its map, as the general reader's
   * default does; any other tagged value is the general reader's.
   */
  private Object tagged(int depth) {
    recordTag();
    return map(depth);
  }

  /** Skips a record's tag up to the '{' of its map; any other tagged form is a surprise. */
  private void recordTag() {
    pos++; // '#'
    int start = pos;
    if (!isSymbolStart(peek())) {
      throw SURPRISE; // #{ a set, #_ a discard, ##Inf...
    }
    while (isSymbolByte(peek())) {
      pos++;
    }
    if (pos - start > MAX_TOKEN || isTag(start, "inst") || isTag(start, "uuid")) {
      throw SURPRISE;
    }
    if (skipBlank() != '{') {
      throw SURPRISE;
    }
  }

  private boolean isTag(int start, String tag) {
    if (pos - start != tag.length()) {
      return false;
    }
    for (int i = 0; i < tag.length(); i++) {
      if (buf[start + i] != tag.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** A top-level map's entries are given to this instead of being kept in a map. */
  interface Fields {
    /** @return false when the key is not a field (its value is then only checked as EDN) */
    boolean field(String key, Object value);

    /**
     * True for a field whose integer value is taken as a long (by {@link #field(String, long)},
     * without a box: an operation's {@code :index} and {@code :time} are new numbers every time).
     */
    boolean takesLong(String key);

    /** An integer value of a field that {@link #takesLong} it. */
    void field(String key, long value);

    /**
     * True for a field whose value, when it is a vector or list of two elements, is taken as
     * those two (by {@link #pair}, without the list: Jepsen's {@code [k v]}, taken apart at once
     * when the history is split by key).
     */
    boolean takesPair(String key);

    /** The two elements of a field's vector or list of two that {@link #takesPair} it. */
    void pair(String key, Object first, Object second);
  }

  /** What {@link #sequence} returns for two elements when asked to leave them in the fields. */
  private static final List<Object> PAIR = Collections.unmodifiableList(new ArrayList<>(0));
  private Object pairFirst;
  private Object pairSecond;

  /**
   * Reads a map whose entries go to {@code fields} (a record's tag before it is skipped); keys
   * that are not fields are kept only to refuse duplicates, as the general reader does.
   */
  void fields(Fields fields) {
    if (peek() == '#') {
      recordTag();
    }
    pos++; // '{'
    List<String> others = null;
    while (true) {
      int c = skipBlank();
      if (c == -1) {
        throw SURPRISE;
      }
      if (c == '}') {
        pos++;
        return;
      }
      Object key = value(1);
      if (!(key instanceof String)) {
        throw SURPRISE; // a number or collection as a key: not an operation's field
      }
      int next = skipBlank();
      if (next == '}' || next == -1) {
        throw SURPRISE; // a key without value
      }
      if (((next >= '0' && next <= '9') || next == '-') && fields.takesLong((String) key)) {
        int from = pos;
        int line0 = line;
        if (longNumber()) {
          fields.field((String) key, unboxed);
          continue;
        }
        pos = from; // a decimal or an odd number: read as any value
        line = line0;
      }
      Object v;
      if ((next == '[' || next == '(') && fields.takesPair((String) key)) {
        pos++;
        v = sequence(next == '[' ? ']' : ')', 1, true);
        if (v == PAIR) {
          fields.pair((String) key, pairFirst, pairSecond);
          pairFirst = null;
          pairSecond = null;
          continue;
        }
      } else {
        v = value(1);
      }
      if (!fields.field((String) key, v)) {
        if (others == null) {
          others = new ArrayList<>(4);
        }
        if (others.contains(key)) {
          throw SURPRISE;
        }
        others.add((String) key);
      }
    }
  }

  private Object map(int depth) {
    pos++; // '{'
    Map<Object, Object> m = new LinkedHashMap<>(4);
    while (true) {
      int c = skipBlank();
      if (c == -1) {
        throw SURPRISE;
      }
      if (c == '}') {
        pos++;
        return Collections.unmodifiableMap(m);
      }
      Object key = value(depth + 1);
      if (skipBlank() == '}') {
        throw SURPRISE;
      }
      Object v = value(depth + 1);
      if (m.containsKey(key) || m.size() == MAX_ORDERED_MAP) {
        throw SURPRISE;
      }
      m.put(key, v);
    }
  }

  /** The elements up to {@code close}; with {@code pairs}, two are left in pairFirst/Second. */
  private List<Object> sequence(char close, int depth, boolean pairs) {
    Object first = null;
    Object second = null;
    List<Object> l = null; // from the third element on
    int n = 0;
    while (true) {
      int c = skipBlank();
      if (c == -1) {
        throw SURPRISE;
      }
      if (c == close) {
        pos++;
        if (l != null) {
          return Collections.unmodifiableList(l);
        }
        if (n == 2 && pairs) {
          pairFirst = first;
          pairSecond = second;
          return PAIR;
        }
        return n == 0 ? Collections.unmodifiableList(new ArrayList<>(0))
            : n == 1 ? ShortList.of(first) : ShortList.of(first, second);
      }
      if (c == ']' || c == ')' || c == '}') {
        throw SURPRISE;
      }
      Object v = value(depth + 1);
      if (n == 0) {
        first = v;
      } else if (n == 1) {
        second = v;
      } else {
        if (l == null) {
          l = new ArrayList<>(4);
          l.add(first);
          l.add(second);
        }
        l.add(v);
      }
      n++;
    }
  }

  /** Per ASCII byte: ends a token (1), may be in a keyword or tag read here (2), or neither. */
  private static final byte[] CLASS = new byte[128];

  static {
    for (int c = 0; c < 128; c++) {
      CLASS[c] = (byte) (endsTokenSlow(c) ? 1 : isSymbolByteSlow(c) ? 2 : 0);
    }
  }

  /** True for a byte that ends a token: blank, or a terminating macro character of EdnReader. */
  private static boolean endsToken(int c) {
    return c >= 0 && CLASS[c] == 1;
  }

  private static boolean endsTokenSlow(int c) {
    switch (c) {
      case ' ':
      case ',':
      case '\n':
      case '\r':
      case '\t':
      case '\f':
      case 0x0B:
      case '"':
      case ';':
      case '^':
      case '(':
      case ')':
      case '[':
      case ']':
      case '{':
      case '}':
      case '\\':
        return true;
      default:
        return c >= 0x1C && c <= 0x1F;
    }
  }

  /** The byte after a token, or a blank at the very end of the input. */
  private int afterToken() {
    if (pos >= lim) {
      if (atEnd) {
        return ' ';
      }
      throw NEED_MORE;
    }
    return buf[pos];
  }

  private static boolean isSymbolStart(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  /** Bytes of a tag or keyword read here: not '/', ':', '#' or '\'' (the general reader's). */
  private static boolean isSymbolByte(int c) {
    return c >= 0 && CLASS[c] == 2;
  }

  private static boolean isSymbolByteSlow(int c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '_'
        || c == '.'
        || c == '*'
        || c == '+'
        || c == '!'
        || c == '?'
        || c == '<'
        || c == '>'
        || c == '=';
  }

  private String keyword() {
    pos++; // ':'
    int start = pos;
    int c = peek();
    if (!(isSymbolStart(c) || c == '-' || c == '_' || c == '*' || c == '+' || c == '!'
        || c == '?' || c == '<' || c == '>' || c == '=')) {
      throw SURPRISE;
    }
    byte[] b = buf;
    while (true) {
      if (pos >= lim) {
        if (!atEnd) {
          throw NEED_MORE;
        }
        break;
      }
      c = b[pos];
      int k = c >= 0 ? CLASS[c] : 0;
      if (k == 1) {
        break;
      }
      if (k != 2) {
        throw SURPRISE; // a namespace, '#', non-ASCII...: the general reader's
      }
      pos++;
    }
    if (pos - start > MAX_TOKEN) {
      throw SURPRISE;
    }
    return names.get(buf, start, pos - start);
  }

  /** nil, true or false; any other symbol is the general reader's. */
  private Object symbol() {
    int start = pos;
    while (true) {
      int c = afterToken();
      if (endsToken(c)) {
        break;
      }
      if (!(c >= 'a' && c <= 'z')) {
        throw SURPRISE;
      }
      pos++;
    }
    int n = pos - start;
    byte[] b = buf;
    if (n == 3 && b[start] == 'n' && b[start + 1] == 'i' && b[start + 2] == 'l') {
      return null;
    }
    if (n == 4 && b[start] == 't' && b[start + 1] == 'r' && b[start + 2] == 'u'
        && b[start + 3] == 'e') {
      return Boolean.TRUE;
    }
    if (n == 5 && b[start] == 'f' && b[start + 1] == 'a' && b[start + 2] == 'l'
        && b[start + 3] == 's' && b[start + 4] == 'e') {
      return Boolean.FALSE;
    }
    throw SURPRISE;
  }

  /** The value of the last {@link #longNumber()}. */
  private long unboxed;

  /**
   * An integer of at most 18 digits followed by the end of its token: true with its value in
   * {@link #unboxed}; false for anything else (not consumed then).
   */
  private boolean longNumber() {
    byte[] b = buf;
    int start = pos;
    boolean negative = b[pos] == '-';
    if (negative) {
      pos++;
    }
    int digitsFrom = pos;
    long v = 0;
    int c;
    while (true) {
      c = afterToken();
      if (c < '0' || c > '9') {
        break;
      }
      v = v * 10 + (c - '0');
      pos++;
    }
    int digits = pos - digitsFrom;
    if (digits == 0 || digits > 18 || (digits > 1 && b[digitsFrom] == '0')
        || !(endsToken(c) || c == '#')) {
      pos = start;
      return false;
    }
    unboxed = negative ? -v : v;
    return true;
  }

  /**
   * An integer of at most 18 digits (a Long), or a decimal without suffix (a Double, by
   * Double.parseDouble as Clojure's reader does). A leading zero before more digits (octal to
   * Clojure), a suffix (N, M), a ratio, a radix: the general reader's.
   */
  private Object number() {
    int start = pos;
    byte[] b = buf;
    boolean negative = false;
    int c = b[pos];
    if (c == '-' || c == '+') {
      negative = c == '-';
      pos++;
      c = peekOrBlank();
      if (!(c >= '0' && c <= '9')) {
        pos = start;
        throw SURPRISE; // a symbol such as - or +x
      }
    }
    int digitsFrom = pos;
    long v = 0;
    while (true) {
      c = peekOrBlank();
      if (c < '0' || c > '9') {
        break;
      }
      v = v * 10 + (c - '0');
      pos++;
    }
    int digits = pos - digitsFrom;
    if (digits > 18 || (digits > 1 && b[digitsFrom] == '0')) {
      throw SURPRISE;
    }
    if (endsToken(c) || c == '#') {
      return boxes.box(negative ? -v : v);
    }
    if (c != '.' && c != 'e' && c != 'E') {
      throw SURPRISE;
    }
    if (c == '.') {
      pos++;
      while ((c = peekOrBlank()) >= '0' && c <= '9') {
        pos++;
      }
    }
    if (c == 'e' || c == 'E') {
      pos++;
      c = peekOrBlank();
      if (c == '-' || c == '+') {
        pos++;
        c = peekOrBlank();
      }
      if (c < '0' || c > '9') {
        throw SURPRISE;
      }
      while ((c = peekOrBlank()) >= '0' && c <= '9') {
        pos++;
      }
    }
    if (!(endsToken(c) || c == '#') || pos - start > MAX_TOKEN) {
      throw SURPRISE;
    }
    return Double.parseDouble(new String(b, start, pos - start, StandardCharsets.ISO_8859_1));
  }

  private int peekOrBlank() {
    return afterToken();
  }

  /**
   * A string: escapes \t \n \b \f \\ \" and \r (as written, two bytes), UTF-8 text. A raw
   * carriage return (the line-numbering reader under Clojure's turns it into \n), \\u and octal
   * escapes, and bytes that are not well-formed UTF-8 are the general reader's.
   */
  private String string() {
    pos++; // '"'
    int start = pos;
    byte[] b = buf;
    boolean ascii = true;
    StringBuilder escaped = null;
    while (true) {
      if (pos >= lim) {
        if (atEnd) {
          throw SURPRISE;
        }
        throw NEED_MORE;
      }
      int c = b[pos];
      if (c == '"') {
        break;
      }
      if (c == '\\') {
        if (!ascii) {
          throw SURPRISE;
        }
        if (escaped == null) {
          escaped = new StringBuilder(pos - start + 16);
          escaped.append(new String(b, start, pos - start, StandardCharsets.ISO_8859_1));
        }
        pos++;
        int e = peek();
        char x;
        switch (e) {
          case 't': x = '\t'; break;
          case 'n': x = '\n'; break;
          case 'r': x = '\r'; break;
          case 'b': x = '\b'; break;
          case 'f': x = '\f'; break;
          case '\\': x = '\\'; break;
          case '"': x = '"'; break;
          default: throw SURPRISE;
        }
        escaped.append(x);
        pos++;
        continue;
      }
      if (c == '\r') {
        throw SURPRISE;
      }
      if (c == '\n' && (pos == 0 || b[pos - 1] != '\r')) {
        line++;
      }
      if (c < 0) {
        if (escaped != null) {
          throw SURPRISE;
        }
        ascii = false;
      } else if (escaped != null) {
        escaped.append((char) c);
      }
      pos++;
    }
    int end = pos;
    pos++; // '"'
    if (escaped != null) {
      return escaped.toString();
    }
    if (ascii) {
      // a short one (a JSON-minded writer's "read") shared and interned, as keywords are
      return end - start <= 32 ? names.get(b, start, end - start)
          : new String(b, start, end - start, StandardCharsets.ISO_8859_1);
    }
    String s = new String(b, start, end - start, StandardCharsets.UTF_8);
    if (s.indexOf('\uFFFD') >= 0) {
      throw SURPRISE; // malformed UTF-8 (or a real U+FFFD): decoded as the stream decoder does
    }
    return s;
  }
}
