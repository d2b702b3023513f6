package io.partkit.verification.history;

import clojure.lang.AFn;
import clojure.lang.EdnReader;
import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import clojure.lang.LineNumberingPushbackReader;
import clojure.lang.PersistentHashMap;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads Jepsen/Knossos EDN histories with Clojure's own EDN reader: either one operation map
 * per line (Jepsen's {@code history.edn}) or a single vector of maps. Tagged records such as
 * {@code #jepsen.history.Op{...}} are read as their maps.
 */
final class EdnHistoryReader {
  private EdnHistoryReader() {}

  private static final Object EOF = new Object();
  private static final IPersistentMap OPTS = PersistentHashMap.create(
      Keyword.intern("eof"), EOF,
      Keyword.intern("default"), new AFn() {
        @Override
        public Object invoke(Object tag, Object value) {
          return value; // records and unknown tags: keep the value, drop the tag
        }
      });

  static List<Op> read(String source, String text) throws HistoryParseException {
    LineNumberingPushbackReader r = new LineNumberingPushbackReader(new StringReader(text));
    List<Op> ops = new ArrayList<>();
    try {
      int c = skipBlank(r);
      if (c == '[') {
        int open = r.getLineNumber();
        r.read();
        while (true) {
          c = skipBlank(r);
          if (c == ']') {
            r.read();
            break;
          }
          if (c == -1) {
            throw new HistoryParseException(source, open,
                "unexpected end of file: expected ']' closing the vector of operations opened here");
          }
          int line = r.getLineNumber();
          ops.add(OpMaps.toOp(readForm(source, r, line), ops.size(), line, source));
        }
        if (skipBlank(r) != -1) {
          throw new HistoryParseException(source, r.getLineNumber(), "expected the end of file after the vector of operations");
        }
      } else {
        while (skipBlank(r) != -1) {
          int line = r.getLineNumber();
          ops.add(OpMaps.toOp(readForm(source, r, line), ops.size(), line, source));
        }
      }
    } catch (IOException e) { // a StringReader does not fail; keep the contract anyway
      throw new HistoryParseException(source, r.getLineNumber(), "could not read: " + e.getMessage(), e);
    }
    return ops;
  }

  /** Reads one EDN form that must be present, as a normalised value. */
  static Object readForm(String source, LineNumberingPushbackReader r, int line) throws HistoryParseException {
    Object form;
    try {
      form = EdnReader.read(r, OPTS);
    } catch (RuntimeException | StackOverflowError e) {
      // EdnReader reports every syntax error as a RuntimeException (often a ReaderException);
      // absurdly deep nesting overflows its recursive descent.
      // The form's first line: a one-map-per-line file names the bad line, and Clojure's message
      // says where inside a longer form it stopped.
      throw new HistoryParseException(source, line,
          "expected valid EDN: " + rootMessage(e), e);
    }
    if (form == EOF) {
      throw new HistoryParseException(source, line, "unexpected end of file: expected an EDN value");
    }
    try {
      return Values.normalize(form);
    } catch (IllegalArgumentException e) {
      throw new HistoryParseException(source, line, "expected plain EDN data: " + e.getMessage(), e);
    }
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    if (t instanceof StackOverflowError) {
      return "nested too deeply";
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  /** Skips whitespace, commas and ; comments; returns the next character without consuming it, or -1. */
  static int skipBlank(LineNumberingPushbackReader r) throws IOException {
    while (true) {
      int c = r.read();
      if (c == -1) {
        return -1;
      }
      if (c == ';') {
        while (c != -1 && c != '\n') {
          c = r.read();
        }
        continue;
      }
      if (!Character.isWhitespace(c) && c != ',') {
        r.unread(c);
        return c;
      }
    }
  }
}
