package io.partkit.verification.history;

import java.io.BufferedReader;
import java.io.IOException;
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
      lineNo++;
      int at = line.indexOf(MARKER);
      if (at < 0) {
        continue;
      }
      Matcher m = OP.matcher(line.substring(at + MARKER.length()));
      if (!m.matches()) {
        continue; // another jepsen.util message
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
