package io.partkit.verification.history;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a stream of bytes into lines as {@link java.io.BufferedReader#readLine} splits text
 * ({@code \n}, {@code \r\n} or a lone {@code \r} ends one; a last line may have no end), a buffer
 * at a time, without decoding: the line readers of JSON lines and Jepsen logs look at the bytes
 * and decode only what they keep, or hand a line they do not read themselves to their general
 * code as text.
 */
final class ByteLines {
  private ByteLines() {}

  /** What is done with each line. */
  interface Handler {
    /** The line's bytes are {@code b[from, to)}, without its end; lines are numbered from 1. */
    void line(byte[] b, int from, int to, int lineNo) throws HistoryParseException;
  }

  /**
   * Calls {@code handler} for each line of {@code head[0, headLength)} followed by the rest of
   * {@code in}.
   */
  static void read(String source, byte[] head, int headLength, InputStream in, Handler handler)
      throws HistoryParseException {
    read(source, head, headLength, in, handler, FastEdnHistoryReader.BUFFER);
  }

  /** As above with a buffer of {@code buffer} bytes at first (tests use a few, to cut lines). */
  static void read(String source, byte[] head, int headLength, InputStream in, Handler handler,
      int buffer) throws HistoryParseException {
    byte[] b = Arrays.copyOf(head, Math.max(Math.max(2, buffer), headLength));
    int lim = headLength;
    int pos = 0;
    int lineNo = 0;
    boolean atEnd = false;
    while (true) {
      int i = pos;
      while (i < lim && b[i] != '\n' && b[i] != '\r') {
        i++;
      }
      boolean crAtEdge = i == lim - 1 && b[i] == '\r' && !atEnd; // "\r\n" may be cut in two
      if ((i == lim || crAtEdge) && !atEnd) {
        // the line goes on past the buffer: keep it, read more
        int keep = lim - pos;
        if (keep > b.length / 2) {
          b = Arrays.copyOf(Arrays.copyOfRange(b, pos, lim), b.length * 2);
        } else {
          System.arraycopy(b, pos, b, 0, keep);
        }
        pos = 0;
        lim = keep;
        try {
          while (lim < b.length) {
            int n = in.read(b, lim, b.length - lim);
            if (n < 0) {
              atEnd = true;
              break;
            }
            lim += n;
          }
        } catch (IOException e) {
          throw new HistoryParseException(source, lineNo + 1, "cannot read: " + e, e);
        }
        continue;
      }
      if (i == lim && pos == lim) {
        return; // the end, after a line end
      }
      handler.line(b, pos, i, ++lineNo);
      if (i == lim) {
        return; // a last line without end
      }
      pos = b[i] == '\r' && i + 1 < lim && b[i + 1] == '\n' ? i + 2 : i + 1;
    }
  }
}
