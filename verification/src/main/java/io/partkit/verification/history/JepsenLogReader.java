package io.partkit.verification.history;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.io.StringReader;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the operation lines of a Jepsen log ({@code jepsen.log}, and the etcd logs of Porcupine's
 * test data): {@code INFO  jepsen.util - PROCESS<TAB>:TYPE<TAB>:F<TAB>VALUE}, separated by tabs
 * or spaces, VALUE being one EDN value. Lines of other loggers and other {@code jepsen.util}
 * messages are skipped; a line that starts like an operation must be a whole operation.
 *
 * <p>In these logs an {@code :info} completion carries the failure (e.g. {@code :timed-out}),
 * not a result; the checker uses the invocation's value for {@code :info} operations anyway.
 */
final class JepsenLogReader {
  private JepsenLogReader() {}

  static final String MARKER = "jepsen.util - ";
  private static final Pattern OP =
      Pattern.compile("^(\\S+)\\s+:(invoke|ok|fail|info)(?=\\s|$)(.*)$");
  private static final Pattern F = Pattern.compile("^\\s+:?([^\\s\\[\\]{}()\"]+)(.*)$");

  /** Reads line by line into {@code ops}: the log is never held whole. */
  static void read(String source, BufferedReader in, List<Op> ops) throws HistoryParseException {
    int lineNo = 0;
    while (true) {
      String line;
      try {
        line = in.readLine();
      } catch (IOException e) {
        throw new HistoryParseException(source, lineNo + 1, "cannot read: " + e, e);
      }
      if (line == null) {
        return;
      }
      line(source, line, ++lineNo, ops);
    }
  }

  /**
   * Reads from bytes, {@code head[0, headLength)} and then the rest of {@code in}: each line by
   * {@link #fast}, or, when that does not read it, as text by {@link #line} (so the values and
   * messages are the ones this reader always gave).
   */
  static void read(String source, byte[] head, int headLength, InputStream in, List<Op> ops)
      throws HistoryParseException {
    read(source, head, headLength, in, ops, FastEdnHistoryReader.BUFFER);
  }

  /** As above with a buffer of {@code buffer} bytes at first (tests use a few). */
  static void read(String source, byte[] head, int headLength, InputStream in, List<Op> ops,
      int buffer) throws HistoryParseException {
    EdnBytes values = new EdnBytes();
    NameTable names = new NameTable();
    ByteLines.read(source, head, headLength, in, (b, from, to, lineNo) -> {
      int at = indexOf(b, from, to, MARKER_BYTES);
      if (at < 0) {
        return; // another logger's line
      }
      if (!fast(b, at + MARKER_BYTES.length, to, lineNo, ops, values, names)) {
        line(source, new String(b, from, to - from, StandardCharsets.UTF_8), lineNo, ops);
      }
    }, buffer);
  }

  static final byte[] MARKER_BYTES = MARKER.getBytes(StandardCharsets.US_ASCII);

  private static int indexOf(byte[] b, int from, int to, byte[] what) {
    byte first = what[0];
    for (int i = from, last = to - what.length; i <= last; i++) {
      if (b[i] == first && Arrays.equals(b, i, i + what.length, what, 0, what.length)) {
        return i;
      }
    }
    return -1;
  }

  /** The regular expressions' \s: space, tab, line feed, vertical tab, form feed, return. */
  private static boolean blank(int c) {
    return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
  }

  private static final String[] TYPES = {"invoke", "ok", "fail", "info"};
  private static final OpType[] OP_TYPES = {OpType.INVOKE, OpType.OK, OpType.FAIL, OpType.INFO};

  /**
   * The operation after the marker, {@code b[i, to)}, read as {@link #OP} and {@link #F} read its
   * text, into {@code ops}; false (nothing added) for a line that is not plain ASCII or that the
   * patterns would not match as simply, and for a value {@link EdnBytes} leaves to the general
   * reader: the text path reads those.
   */
  static boolean fast(byte[] b, int i, int to, int lineNo, List<Op> ops,
      EdnBytes values, NameTable names) {
    for (int k = i; k < to; k++) {
      if (b[k] < 0) {
        return false;
      }
    }
    int p0 = i;
    while (i < to && !blank(b[i])) {
      i++;
    }
    int p1 = i;
    if (p1 == p0 || i == to) {
      return false;
    }
    while (i < to && blank(b[i])) {
      i++;
    }
    if (i == to || b[i] != ':') {
      return false;
    }
    i++;
    OpType type = null;
    for (int t = 0; t < TYPES.length; t++) {
      int n = TYPES[t].length();
      if (i + n <= to && (i + n == to || blank(b[i + n]))
          && Arrays.equals(b, i, i + n, TYPES[t].getBytes(StandardCharsets.US_ASCII), 0, n)) {
        type = OP_TYPES[t];
        i += n;
        break;
      }
    }
    if (type == null || i == to) {
      return false;
    }
    while (i < to && blank(b[i])) {
      i++;
    }
    if (i < to && b[i] == ':') {
      i++;
    }
    int f0 = i;
    while (i < to && !blank(b[i]) && "[]{}()\"".indexOf(b[i]) < 0) {
      i++;
    }
    if (i == f0) {
      return false;
    }
    String f = names.get(b, f0, i - f0);
    int v0 = i;
    int v1 = to;
    while (v0 < v1 && b[v0] <= ' ') {
      v0++;
    }
    while (v1 > v0 && b[v1 - 1] <= ' ') {
      v1--;
    }
    Object value = null;
    if (v0 < v1) {
      values.buf = b;
      values.pos = v0;
      values.lim = v1;
      values.atEnd = true;
      try {
        values.skipBlank();
        value = values.value(0);
        if (values.skipBlank() != -1) {
          return false;
        }
      } catch (EdnBytes.Surprise e) {
        return false;
      }
    }
    Object process = process(b, p0, p1, names);
    if (process == null) {
      return false;
    }
    ops.add(new Op(ops.size(), process, type, f, value, null, -1, lineNo));
    return true;
  }

  /** As parseProcess: a number of up to 18 digits, else a name without its colon; or null. */
  private static Object process(byte[] b, int from, int to, NameTable names) {
    int i = from;
    if (b[i] == '-' || b[i] == '+') {
      i++;
    }
    if (i < to && b[i] >= '0' && b[i] <= '9') {
      long v = 0;
      int d = i;
      while (d < to && b[d] >= '0' && b[d] <= '9') {
        v = v * 10 + (b[d] - '0');
        d++;
      }
      if (d == to) {
        return d - i > 18 ? null : (Object) (b[from] == '-' ? -v : v);
      }
    }
    if (b[from] == ':') {
      from++;
    }
    return names.get(b, from, to - from);
  }

  /** One line of text, numbered from 1: an operation into {@code ops}, or nothing. */
  private static void line(String source, String line, int lineNo, List<Op> ops)
      throws HistoryParseException {
    int at = line.indexOf(MARKER);
    if (at < 0) {
      return;
    }
    Matcher m = OP.matcher(line.substring(at + MARKER.length()));
    if (!m.matches()) {
      return; // another jepsen.util message
    }
    Matcher fm = F.matcher(m.group(3));
    if (!fm.matches()) {
      throw new HistoryParseException(
          source,
          lineNo,
          "expected a function such as :read after :"
              + m.group(2)
              + " (line format: PROCESS :TYPE :F VALUE)");
    }
    Object process = parseProcess(m.group(1));
    String rest = fm.group(2).trim();
    Object value = rest.isEmpty() ? null : readValue(source, lineNo, rest);
    // interned, as OpMaps does: a history names a handful of functions, compared often
    String f = fm.group(1).intern();
    ops.add(new Op(ops.size(), process, OpType.parse(m.group(2)), f, value, null, -1, lineNo));
  }

  private static Object parseProcess(String token) {
    try {
      return Long.parseLong(token);
    } catch (NumberFormatException e) {
      return token.startsWith(":") ? token.substring(1) : token; // :nemesis and friends
    }
  }

  private static Object readValue(String source, int lineNo, String text)
      throws HistoryParseException {
    return EdnHistoryReader.readValue(source, lineNo, text, " after the function");
  }
}
