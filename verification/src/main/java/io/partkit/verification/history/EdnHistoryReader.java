package io.partkit.verification.history;

import clojure.lang.AFn;
import clojure.lang.EdnReader;
import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import clojure.lang.LineNumberingPushbackReader;
import clojure.lang.PersistentHashMap;
import clojure.lang.Symbol;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Map;

/**
 * Reads Jepsen/Knossos EDN histories with Clojure's own EDN reader, in every shape they are
 * written: one operation per line (Jepsen's {@code history.edn}), or one collection of them, a
 * vector {@code [...]} or a list {@code (...)} (Knossos' files, {@code pr} of a seq). An
 * operation is a map, or a Knossos test tuple {@code [process type f value]}.
 *
 * <p>Streams: one operation form is read at a time and only its compact {@link Op} is kept, so a
 * 200 MB file costs the ops, not the text plus a Clojure vector of maps on top.
 *
 * <p>Tags: records such as {@code #jepsen.history.Op{...}} read as their maps; {@code #inst},
 * {@code #uuid} and unknown tags read as {@link TaggedValue}s instead of failing the file.
 */
final class EdnHistoryReader {
  private EdnHistoryReader() {}

  /** How far ahead the shape of the file is looked for (past leading comments). */
  private static final int SHAPE_PROBE = 1 << 16;

  private static final Object EOF = new Object();
  private static final IPersistentMap OPTS =
      PersistentHashMap.create(
          Keyword.intern("eof"),
          EOF,
          Keyword.intern("readers"),
          PersistentHashMap.create(
              Symbol.intern("inst"), tagged("inst"), Symbol.intern("uuid"), tagged("uuid")),
          Keyword.intern("default"),
          new AFn() {
            @Override
            public Object invoke(Object tag, Object value) {
              // A record (#jepsen.history.Op{...}) is its map; any other unknown tag is kept.
              return value instanceof Map
                  ? value
                  : new TaggedValue(tag.toString(), normalizeTagged(value));
            }
          });

  private static AFn tagged(String tag) {
    return new AFn() {
      @Override
      public Object invoke(Object value) {
        return new TaggedValue(tag, normalizeTagged(value));
      }
    };
  }

  private static Object normalizeTagged(Object value) {
    try {
      return Values.normalize(value);
    } catch (IllegalArgumentException e) {
      return String.valueOf(value); // a value no history holds: kept by its text
    }
  }

  /**
   * Reads every operation into {@code ops}.
   *
   * @return true when the file was one collection of operations (so an empty one, {@code []},
   *     is an empty history rather than a file without a history)
   */
  static boolean read(String source, BufferedReader in, List<Op> ops) throws HistoryParseException {
    int close;
    int skipped;
    try {
      skipped = skipLeading(in);
      close = collectionCloser(in);
    } catch (IOException e) {
      throw new HistoryParseException(source, 1, "cannot read: " + e.getMessage(), e);
    }
    // Clojure's reader counts lines from 1 where it starts: the leading lines skipped are added.
    LineNumberingPushbackReader r =
        new LineNumberingPushbackReader(new DigitBound(in, 1 + skipped));
    int open = 0;
    if (close >= 0) {
      try {
        skipBlank(r);
        open = skipped + r.getLineNumber();
        r.read();
      } catch (IOException e) {
        throw new HistoryParseException(
            source, skipped + r.getLineNumber(), "cannot read: " + e.getMessage(), e);
      }
    }
    return readForms(source, r, skipped, ops, close, open);
  }

  /**
   * Reads on from a form boundary in the middle of a file, where the fast reader left off (see
   * {@link FastEdnHistoryReader}): {@code in} starts on line {@code line}, inside the collection
   * of operations closed by {@code close} that opened on line {@code openLine}, or at the top
   * level when {@code close} is -1, {@code skipped} leading lines after the file's start. Reads,
   * returns and fails exactly as {@link #read} would have from there.
   */
  static boolean readFrom(String source, BufferedReader in, List<Op> ops, int close,
      int openLine, int line, int skipped) throws HistoryParseException {
    LineNumberingPushbackReader r = new LineNumberingPushbackReader(new DigitBound(in, line));
    // counting as it would have from the file's start (after the leading lines skipped), for the
    // lines Clojure's messages name ("EOF while reading, starting at line 6")
    r.setLineNumber(line - skipped);
    return readForms(source, r, skipped, ops, close, openLine);
  }

  private static boolean readForms(String source, LineNumberingPushbackReader r, int skipped,
      List<Op> ops, int close, int open) throws HistoryParseException {
    try {
      if (close >= 0) {
        while (true) {
          int c = skipBlank(r);
          if (c == close) {
            r.read();
            break;
          }
          if (c == -1) {
            throw new HistoryParseException(
                source,
                open,
                "unexpected end of file: expected '"
                    + (char) close
                    + "' closing the collection of operations opened here");
          }
          int line = skipped + r.getLineNumber();
          ops.add(OpMaps.toOp(readForm(source, r, line), ops.size(), line, source));
        }
        if (skipBlank(r) != -1) {
          throw new HistoryParseException(source, skipped + r.getLineNumber(),
              "expected the end of file after the collection of operations");
        }
        return true;
      }
      while (skipBlank(r) != -1) {
        int line = skipped + r.getLineNumber();
        ops.add(OpMaps.toOp(readForm(source, r, line), ops.size(), line, source));
      }
      return false;
    } catch (IOException e) {
      throw new HistoryParseException(
          source, skipped + r.getLineNumber(), "cannot read: " + e.getMessage(), e);
    } catch (DigitBound.TooLong e) {
      throw new HistoryParseException(source, e.line, e.getMessage(), e);
    }
  }

  /**
   * Consumes leading blanks and comments (a file may start with a long header of comments), up to
   * the first form; returns how many lines ended in them.
   */
  private static int skipLeading(BufferedReader in) throws IOException {
    int lines = 0;
    while (true) {
      in.mark(1);
      int c = in.read();
      if (c == ';') {
        while (c != -1 && c != '\n') {
          c = in.read();
        }
      }
      if (c == '\n') {
        lines++;
      } else if (c == -1 || !(Character.isWhitespace(c) || c == ',' || c == ';')) {
        in.reset();
        return lines;
      }
    }
  }

  /**
   * The character closing the collection the file is, or -1 for one operation per line. A file
   * starting with {@code [} is a collection unless what follows is not an operation form: then
   * the {@code [} opens a tuple, and the file is one tuple per line
   * ({@code [0 :invoke :read nil]}).
   */
  private static int collectionCloser(BufferedReader in) throws IOException {
    in.mark(SHAPE_PROBE);
    try {
      int c = skipBlankRaw(in);
      if (c != '[' && c != '(') {
        return -1;
      }
      int next = skipBlankRaw(in);
      boolean collection = next == -1 || "{[(#])".indexOf(next) >= 0;
      return collection ? (c == '[' ? ']' : ')') : -1;
    } finally {
      try {
        in.reset();
      } catch (IOException e) {
        throw new IOException(
            "a comment after the opening bracket longer than " + SHAPE_PROBE + " characters", e);
      }
    }
  }

  /** Skips blanks and comments; returns the next character, consumed. */
  private static int skipBlankRaw(BufferedReader in) throws IOException {
    while (true) {
      int c = in.read();
      if (c == ';') {
        while (c != -1 && c != '\n') {
          c = in.read();
        }
        continue;
      }
      if (c == -1 || !(Character.isWhitespace(c) || c == ',')) {
        return c;
      }
    }
  }

  /** Reads one EDN form that must be present, as a normalised value. */
  static Object readForm(String source, LineNumberingPushbackReader r, int line)
      throws HistoryParseException {
    Object form;
    try {
      form = EdnReader.read(r, OPTS);
    } catch (RuntimeException | StackOverflowError e) {
      DigitBound.TooLong tooLong = tooLong(e);
      if (tooLong != null) {
        throw tooLong;
      }
      // EdnReader reports every syntax error as a RuntimeException (often a ReaderException);
      // absurdly deep nesting overflows its recursive descent.
      // The form's first line: a one-map-per-line file names the bad line, and Clojure's message
      // says where inside a longer form it stopped.
      throw new HistoryParseException(source, line,
          "expected valid EDN: " + rootMessage(e), e);
    }
    if (form == EOF) {
      throw new HistoryParseException(
          source, line, "unexpected end of file: expected an EDN value");
    }
    try {
      return Values.normalize(form);
    } catch (IllegalArgumentException e) {
      throw new HistoryParseException(
          source, line, "expected plain EDN data: " + e.getMessage(), e);
    }
  }

  /**
   * Reads {@code text} as exactly one EDN value on line {@code line} of {@code source} (a Jepsen
   * log line's value), with a file's bounds (digits per number, nesting depth).
   *
   * @param after what the value follows, for the message about extra text after it
   */
  static Object readValue(String source, int line, String text, String after)
      throws HistoryParseException {
    return readValue(source, line, text, after, valueReader(text, line));
  }

  /**
   * Reads {@code text} as exactly one EDN value (see {@link Values#fromEdn}); a message says where
   * in the text reading stopped, since the text is usually not a file one can open at a line.
   */
  static Object readValue(String source, String text) throws HistoryParseException {
    if (text.isBlank()) {
      throw new HistoryParseException(source, 1, "expected an EDN value, got nothing");
    }
    LineNumberingPushbackReader r = valueReader(text, 1);
    try {
      return readValue(source, 1, text, "", r);
    } catch (HistoryParseException e) {
      // Clojure's reader counts the end of the text as one more line
      int lines = 1 + (int) text.chars().filter(c -> c == '\n').count();
      boolean atEnd = r.getLineNumber() > lines;
      String where = atEnd ? "the end of the text" : "column " + r.getColumnNumber();
      throw new HistoryParseException(
          source,
          atEnd ? lines : r.getLineNumber(),
          e.reason() + " (reading stopped at " + where + ")",
          e.getCause());
    }
  }

  private static LineNumberingPushbackReader valueReader(String text, int line) {
    return new LineNumberingPushbackReader(new DigitBound(new StringReader(text), line));
  }

  private static Object readValue(
      String source, int line, String text, String after, LineNumberingPushbackReader r)
      throws HistoryParseException {
    try {
      Object v = readForm(source, r, line);
      if (skipBlank(r) != -1) { // may read ahead: TooLong is caught below too
        throw new HistoryParseException(
            source, line, "expected one EDN value" + after + ", got extra text: " + text);
      }
      return v;
    } catch (DigitBound.TooLong e) {
      throw new HistoryParseException(source, e.line, e.getMessage(), e);
    } catch (IOException e) {
      throw new HistoryParseException(source, line, "could not read: " + e.getMessage(), e);
    }
  }

  private static DigitBound.TooLong tooLong(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof DigitBound.TooLong) {
        return (DigitBound.TooLong) t;
      }
    }
    return null;
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

  /**
   * Skips whitespace, commas and ; comments; returns the next character without consuming it, or
   * -1.
   */
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
