package io.partkit.verification.history;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.SequenceInputStream;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Reads an EDN history file from its bytes with {@link EdnBytes}, in the shapes
 * {@link EdnHistoryReader} reads (one operation per line, or one vector or list of them; maps,
 * records or Knossos tuples), a buffer at a time so that memory holds the operations and one
 * buffer of text. At the first form {@link EdnBytes} leaves to the general reader (see there),
 * the rest of the file, from that form on, is read by {@link EdnHistoryReader} exactly as the whole
 * file was before: same values, same messages, same line numbers. A history written by Jepsen,
 * Knossos or partkit never gets there.
 */
final class FastEdnHistoryReader {
  private FastEdnHistoryReader() {}

  /** The buffer: big enough that refills are rare, small next to the operations. */
  static final int BUFFER = 1 << 20;

  /** As in EdnHistoryReader: how far past the opening bracket the shape is looked for. */
  private static final int SHAPE_PROBE = 1 << 16;

  private static final String[] FIELDS = {"process", "type", "f", "value", "key", "index", "time"};

  /**
   * Reads every operation of {@code in} (positioned after any byte-order mark) into {@code ops}.
   *
   * @param head bytes already read from the stream, which come first
   * @return as {@link EdnHistoryReader#read}: true when the file was one collection of operations
   */
  static boolean read(String source, byte[] head, int headLength, InputStream in, List<Op> ops)
      throws HistoryParseException {
    return read(source, head, headLength, in, ops, BUFFER);
  }

  /** As above with a buffer of {@code buffer} bytes at first (tests use a few, to cut forms). */
  static boolean read(String source, byte[] head, int headLength, InputStream in, List<Op> ops,
      int buffer) throws HistoryParseException {
    return read(source, head, headLength, in, ops, buffer, true);
  }

  /**
   * As above; without {@code handOn}, a form left to the general reader throws
   * IllegalStateException instead (FastReadersDifferentialTest: the histories Jepsen, Knossos and
   * partkit write are read by this reader alone).
   */
  static boolean read(String source, byte[] head, int headLength, InputStream in, List<Op> ops,
      int buffer, boolean handOn) throws HistoryParseException {
    return read(source, head, headLength, in, ops, buffer, handOn, null);
  }

  /**
   * The part of the file from a line start on, read by another thread ({@link TwoHalves}): at the
   * first form at or past {@link #at()}, the reading stops and asks it to take over.
   */
  interface Rest {
    /** The byte offset (in the stream given to read, after any byte-order mark). */
    long at();

    /**
     * Appends the rest's operations to {@code ops} and returns true, or returns false (nothing
     * appended) when the rest was not read exactly as this reader would have read it: its first
     * form is not at line {@code line}, or it met a form it does not read. The reading then goes
     * on by itself.
     */
    boolean takeOver(List<Op> ops, int line) throws HistoryParseException;

    /** The rest will not be asked to take over: it may stop reading. */
    void notNeeded();
  }

  /**
   * As above; with {@code rest}, a file of one operation per line (not a collection) stops at
   * the first form at or past {@code rest.at()}, if no form straddles that offset, and the rest
   * takes over from there.
   */
  static boolean read(String source, byte[] head, int headLength, InputStream in, List<Op> ops,
      int buffer, boolean handOn, Rest rest) throws HistoryParseException {
    EdnBytes p = new EdnBytes();
    p.buf = Arrays.copyOf(head, Math.max(buffer, headLength));
    p.lim = headLength;
    // The file's start: leading blank lines and comments (counted by '\n' only, as
    // EdnHistoryReader.skipLeading counts), then the shape, read from the buffer's start again
    // while the buffer is too short to see them. Anything unusual there: the general reader
    // reads the whole file.
    int close;
    int openLine = 0;
    int leading;
    while (true) {
      p.pos = 0;
      p.line = 1;
      try {
        leading = leadingLines(p);
        p.line = 1 + leading;
        close = collectionCloser(p);
        if (close >= 0) {
          p.skipBlank();
          openLine = p.line;
          p.pos++;
        }
        break;
      } catch (EdnBytes.NeedMore e) {
        try {
          p.buf = Arrays.copyOf(p.buf, Math.max(16, p.buf.length * 2));
          fill(p, in);
        } catch (IOException x) {
          throw new HistoryParseException(source, 1, "cannot read: " + x.getMessage(), x);
        }
      } catch (EdnBytes.Surprise e) {
        if (!handOn) {
          throw new IllegalStateException("the general reader was needed for the file's start");
        }
        if (rest != null) {
          rest.notNeeded(); // the general reader reads the whole file
        }
        return EdnHistoryReader.read(source, general(p, 0, in), ops);
      }
    }
    Fields f = new Fields();
    long base = 0; // the stream offset of p.buf[0]
    long lastEnd = -1; // the stream offset where the last form read ends
    if (close >= 0 && rest != null) {
      rest.notNeeded(); // inside a collection no line start is a form's
      rest = null;
    }
    while (true) {
      int mark = p.pos;
      int markLine = p.line;
      try {
        int c = p.skipBlank();
        if (c == -1) {
          if (close >= 0) {
            throw EdnBytes.SURPRISE; // unclosed: the general reader says so
          }
          return false;
        }
        if (close >= 0 && c == close) {
          p.pos++;
          if (p.skipBlank() != -1) {
            throw EdnBytes.SURPRISE;
          }
          return true;
        }
        if (rest != null && lastEnd >= 0 && base + p.pos >= rest.at()) {
          // only blanks and comments between the last form and this one: if the offset is
          // among them, the rest was read from a point between two forms
          Rest r = rest;
          rest = null;
          if (lastEnd <= r.at() && r.takeOver(ops, p.line)) {
            return false;
          }
        }
        add(p, f, ops, source);
        lastEnd = base + p.pos;
      } catch (EdnBytes.NeedMore e) {
        p.pos = mark;
        p.line = markLine;
        try {
          base += refill(p, in);
        } catch (IOException x) {
          throw new HistoryParseException(source, markLine, "cannot read: " + x.getMessage(), x);
        }
      } catch (EdnBytes.Surprise e) {
        if (!handOn) {
          throw new IllegalStateException("the general reader was needed at line " + markLine);
        }
        if (rest != null) {
          rest.notNeeded(); // the general reader reads on from here
        }
        return EdnHistoryReader.readFrom(
            source, general(p, mark, in), ops, close, openLine, markLine, leading);
      }
    }
  }

  /**
   * One operation form, added to {@code ops}: a map (or record) read field by field, else a value
   * made an op. Into a {@link SplitWhileReading}, a map's operation is made once, split or not,
   * without its {@code [k v]} vector when the split takes it apart.
   */
  private static void add(EdnBytes p, Fields f, List<Op> ops, String source)
      throws EdnBytes.Surprise {
    int line = p.line;
    int c = p.buf[p.pos];
    if (c == '{' || c == '#') {
      mapFields(p, f);
      addFields(f, ops, line);
      return;
    }
    Object form = p.value(0);
    try {
      ops.add(OpMaps.toOp(form, ops.size(), line, source));
    } catch (HistoryParseException e) {
      throw EdnBytes.SURPRISE; // the general reader reads the same value and says the same
    }
  }

  /** Reads an operation map's fields into {@code f}; a map that is no operation is a surprise. */
  private static void mapFields(EdnBytes p, Fields f) {
    f.clear();
    p.fields(f);
    f.type = OpMaps.typeOf(f.values[0], f.values[1], f.values[2]);
    if (f.type == null) {
      throw EdnBytes.SURPRISE; // not an operation: OpMaps says why, through the general reader
    }
  }

  /** Adds the operation of the fields {@link #mapFields} read. */
  private static void addFields(Fields f, List<Op> ops, int line) {
    // names are interned by EdnBytes' NameTable
    String fn = OpMaps.function((String) f.values[2], true);
    long index = f.index(ops.size());
    if (ops instanceof SplitWhileReading) {
      ((SplitWhileReading) ops).add(index, f.values[0], f.type, fn, f.values[3], f.second,
          f.pair, f.values[4], f.time(), line);
    } else {
      ops.add(new Op(index, f.values[0], f.type, fn,
          f.pair ? ShortList.of(f.values[3], f.second) : f.values[3], f.values[4], f.time(),
          line));
    }
  }

  /** An operation map's fields, by their name's index in FIELDS; a second one is a surprise. */
  private static final class Fields implements EdnBytes.Fields {
    private static final int INDEX = 5;
    private static final int TIME = 6;
    private static final int VALUE = 3;
    final Object[] values = new Object[FIELDS.length];
    final long[] longs = new long[FIELDS.length];
    int seen;
    int unboxed; // the fields whose value is in longs
    /** The value is the vector [values[VALUE] second] (not made: {@link #pair}). */
    boolean pair;
    Object second;
    /** The type, once the fields are an operation's. */
    OpType type;

    void clear() {
      Arrays.fill(values, null);
      seen = 0;
      unboxed = 0;
      pair = false;
      second = null;
      type = null;
    }

    long index(long position) {
      return (unboxed & (1 << INDEX)) != 0 ? longs[INDEX]
          : values[INDEX] instanceof Long ? (Long) values[INDEX] : position;
    }

    long time() {
      return (unboxed & (1 << TIME)) != 0 ? longs[TIME]
          : values[TIME] instanceof Long ? (Long) values[TIME] : -1;
    }

    @Override
    public boolean takesLong(String key) {
      return key == FIELDS[INDEX] || key == FIELDS[TIME];
    }

    @Override
    public void field(String key, long value) {
      int i = key == FIELDS[INDEX] ? INDEX : TIME;
      if ((seen & (1 << i)) != 0) {
        throw EdnBytes.SURPRISE;
      }
      seen |= 1 << i;
      unboxed |= 1 << i;
      longs[i] = value;
    }

    @Override
    public boolean takesPair(String key) {
      return key == FIELDS[VALUE];
    }

    @Override
    public void pair(String key, Object first, Object second) {
      if ((seen & (1 << VALUE)) != 0) {
        throw EdnBytes.SURPRISE;
      }
      seen |= 1 << VALUE;
      values[VALUE] = first;
      this.second = second;
      pair = true;
    }

    @Override
    public boolean field(String key, Object value) {
      for (int i = 0; i < FIELDS.length; i++) {
        // keyword names are interned by EdnBytes, strings are not: equals for the rare string key
        if (FIELDS[i] == key || FIELDS[i].equals(key)) {
          if ((seen & (1 << i)) != 0) {
            throw EdnBytes.SURPRISE; // a duplicate key, or :f and "f": the general reader's
          }
          seen |= 1 << i;
          values[i] = value;
          return true;
        }
      }
      return false;
    }
  }

  /** Lines of leading blanks and comments, consumed; as EdnHistoryReader.skipLeading. */
  private static int leadingLines(EdnBytes p) {
    int lines = 0;
    while (true) {
      if (p.pos >= p.lim) {
        throw p.atEnd ? EdnBytes.SURPRISE : EdnBytes.NEED_MORE; // nothing but blanks: general
      }
      int c = p.buf[p.pos];
      if (c == ';') {
        while (p.pos < p.lim && p.buf[p.pos] != '\n') {
          if (p.buf[p.pos] < 0) {
            throw EdnBytes.SURPRISE;
          }
          p.pos++;
        }
        continue;
      }
      if (c == '\n') {
        lines++;
      } else if (!(c == ' ' || c == ',' || c == '\t' || c == '\r' || c == 0x0B || c == '\f'
          || (c >= 0x1C && c <= 0x1F))) {
        return lines;
      }
      p.pos++;
    }
  }

  /** As EdnHistoryReader.collectionCloser, on the buffer (without consuming). */
  private static int collectionCloser(EdnBytes p) {
    int c = p.buf[p.pos];
    if (c != '[' && c != '(') {
      return -1;
    }
    int i = p.pos + 1;
    int probeEnd = Math.min(p.lim, p.pos + SHAPE_PROBE);
    while (true) {
      if (i >= probeEnd) {
        if (probeEnd == p.lim && !p.atEnd) {
          throw EdnBytes.NEED_MORE;
        }
        throw EdnBytes.SURPRISE; // end of file or a long comment: the general reader decides
      }
      int n = p.buf[i];
      if (n == ';') {
        while (i < probeEnd && p.buf[i] != '\n') {
          i++;
        }
        continue;
      }
      if (n < 0) {
        throw EdnBytes.SURPRISE;
      }
      if (n == ' ' || n == ',' || n == '\t' || n == '\n' || n == '\r' || n == 0x0B
          || n == '\f' || (n >= 0x1C && n <= 0x1F)) {
        i++;
        continue;
      }
      boolean collection = "{[(#])".indexOf(n) >= 0;
      return collection ? (c == '[' ? ']' : ')') : -1;
    }
  }

  /** Reads until the buffer is full or the stream ends. */
  private static void fill(EdnBytes p, InputStream in) throws IOException {
    while (p.lim < p.buf.length) {
      int n = in.read(p.buf, p.lim, p.buf.length - p.lim);
      if (n < 0) {
        p.atEnd = true;
        return;
      }
      p.lim += n;
    }
  }

  /**
   * Keeps the bytes from pos on (a form cut by the buffer's end), reads more after them; a form
   * longer than half the buffer doubles it.
   */
  private static int refill(EdnBytes p, InputStream in) throws IOException {
    // the byte before pos tells whether a '\n' at pos ends a "\r\n" already counted: kept too
    int from = p.pos > 0 ? p.pos - 1 : 0;
    int keep = p.lim - from;
    byte[] to = keep > p.buf.length / 2 ? new byte[p.buf.length * 2] : p.buf;
    System.arraycopy(p.buf, from, to, 0, keep);
    p.buf = to;
    p.pos -= from;
    p.lim = keep;
    fill(p, in);
    return from;
  }

  /**
   * Reads the operations of {@code in}, the part of a file of one operation per line from a
   * line start on ({@link TwoHalves}), as {@link #read} would read them there: lines counted from
   * {@code line}. Gives up (returns false) at the first form it would hand to the general reader,
   * and at an operation without {@code :index}, whose index would be its position in the whole
   * file; also when {@code cancelled} (checked per operation).
   */
  static boolean readRest(String source, InputStream in, int line, List<Op> ops, int buffer,
      java.util.function.BooleanSupplier cancelled) throws IOException {
    EdnBytes p = new EdnBytes();
    p.buf = new byte[buffer];
    p.line = line;
    fill(p, in);
    Fields f = new Fields();
    while (!cancelled.getAsBoolean()) {
      int mark = p.pos;
      int markLine = p.line;
      try {
        int c = p.skipBlank();
        if (c == -1) {
          return true;
        }
        if (c != '{' && c != '#') {
          return false; // a list or vector made an op takes its position as index
        }
        int line0 = p.line;
        mapFields(p, f);
        if ((f.unboxed & (1 << Fields.INDEX)) == 0 && !(f.values[Fields.INDEX] instanceof Long)) {
          return false;
        }
        addFields(f, ops, line0);
      } catch (EdnBytes.NeedMore e) {
        p.pos = mark;
        p.line = markLine;
        refill(p, in);
      } catch (EdnBytes.Surprise e) {
        return false;
      }
    }
    return false;
  }

  /**
   * The text from byte {@code from} of the buffer on, then the rest of the stream, decoded as
   * Histories.read decodes a file (malformed UTF-8 replaced), for the general reader.
   */
  private static BufferedReader general(EdnBytes p, int from, InputStream in) {
    InputStream rest = new ByteArrayInputStream(p.buf, from, p.lim - from);
    if (!p.atEnd) {
      rest = new SequenceInputStream(rest, in);
    }
    return new BufferedReader(
        new InputStreamReader(
            rest,
            StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE)),
        1 << 16);
  }
}
