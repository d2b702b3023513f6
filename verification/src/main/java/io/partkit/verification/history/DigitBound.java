package io.partkit.verification.history;

import java.io.FilterReader;
import java.io.IOException;
import java.io.Reader;

/**
 * Passes text through to Clojure's EDN reader, refusing a run of more than {@link #MAX_DIGITS}
 * digits outside strings and comments. Why: the reader turns a number literal into a BigInteger
 * in time quadratic in its length (a million digits take about 22 s), before any time limit of
 * the checker applies; no real history holds such a number. Digits inside strings cost linear
 * time and are let through.
 */
final class DigitBound extends FilterReader {
  /** Longer than any 64-bit number or realistic arbitrary-precision value in a history. */
  static final int MAX_DIGITS = 1000;

  /** Thrown through the EDN reader; {@link EdnHistoryReader} turns it into a parse error. */
  static final class TooLong extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int line;

    TooLong(int line) {
      super(
          "expected a number of at most "
              + MAX_DIGITS
              + " digits (a longer one would take minutes to read)",
          null,
          false,
          false);
      this.line = line;
    }
  }

  private final int firstLine;
  private int line;
  private int run;
  private boolean inString;
  private boolean inComment;
  private boolean escaped;

  /** @param firstLine the line the text starts on (a Jepsen log value starts mid-file) */
  DigitBound(Reader in, int firstLine) {
    super(in);
    this.firstLine = firstLine;
    this.line = firstLine;
  }

  @Override
  public int read() throws IOException {
    int c = in.read();
    if (c >= 0) {
      scan((char) c);
    }
    return c;
  }

  @Override
  public int read(char[] buf, int off, int len) throws IOException {
    int n = in.read(buf, off, len);
    for (int i = 0; i < n; i++) {
      scan(buf[off + i]);
    }
    return n;
  }

  private void scan(char c) {
    if (c == '\n') {
      line++;
      inComment = false;
    }
    if (escaped) { // the character after a backslash: in a string, or a character literal like \"
      escaped = false;
      run = 0;
      return;
    }
    if (inComment) {
      return;
    }
    if (c == '\\') {
      escaped = true;
    } else if (c == '"') {
      inString = !inString;
    } else if (!inString && c == ';') {
      inComment = true;
    } else if (!inString && c >= '0' && c <= '9') {
      if (++run > MAX_DIGITS) {
        throw new TooLong(line);
      }
      return;
    }
    run = 0;
  }

  int firstLine() {
    return firstLine;
  }
}
