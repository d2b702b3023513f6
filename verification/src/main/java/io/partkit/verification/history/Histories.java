package io.partkit.verification.history;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads histories, recognising the format from the content: EDN maps (one per line, or a
 * vector of them), JSON lines, or Jepsen log lines.
 */
public final class Histories {
  private Histories() {}

  /** The formats {@link #read(Path)} recognises. */
  public enum Format { EDN, JSON_LINES, JEPSEN_LOG }

  /** How much of the text the format is recognised from. */
  private static final int PROBE = 1 << 16;

  /**
   * Reads a history file, streaming: the file's text is never held whole, only the operations.
   *
   * <p>An empty collection ({@code []} or {@code ()}) is an empty history, which is valid; a file
   * with no history at all (empty, only blanks or comments, or no operation lines) is bad input.
   *
   * @throws HistoryParseException if the file cannot be read, holds no history, or is malformed;
   *     the message names the file, the line and what was expected
   */
  public static History read(Path file) throws HistoryParseException {
    return read(file, null);
  }

  /**
   * Reads a history file split by key as {@link Independent#apply} splits it, the operations split
   * while they are read: {@code Independent.apply(read(file), mode)}, the same operations and the
   * same errors, without a second {@link Op} per event (a Jepsen {@code independent} history of
   * 2M events made 2M more, and as much garbage).
   *
   * @param mode how to split, or null for {@link #read(Path)}
   * @throws HistoryParseException as read(Path), then as Independent.apply
   */
  public static History read(Path file, Independent.Mode mode) throws HistoryParseException {
    try (InputStream in = Files.newInputStream(file)) {
      return read(file.toString(), in, FastEdnHistoryReader.BUFFER, mode,
          TwoHalves.worthIt(Files.size(file)) ? file : null, -1);
    } catch (IOException e) {
      throw new HistoryParseException(file.toString(), 0, "cannot read the file: " + e, e);
    }
  }

  /**
   * Reads a history from a stream of UTF-8 bytes, as {@link #read(Path)} reads a file: from the
   * bytes, at the speed of the disk, by readers that hand whatever they do not read themselves to
   * the general ones ({@link #read(String, Reader)}'s), so the operations and the messages are
   * the same as from the text. Malformed UTF-8 is replaced, as a decoder would: one bad byte in a
   * value does not make the file unreadable.
   *
   * @param source the name to use in messages
   * @throws HistoryParseException if the bytes hold no history or are malformed
   */
  public static History read(String source, InputStream in) throws HistoryParseException {
    return read(source, in, FastEdnHistoryReader.BUFFER);
  }

  /**
   * As {@link #read(String, InputStream)}, the readers starting with a buffer of {@code buffer}
   * bytes (FastReadersDifferentialTest uses a few, so that forms and lines are cut by it).
   */
  static History read(String source, InputStream in, int buffer) throws HistoryParseException {
    return read(source, in, buffer, null);
  }

  /** As above, split by key while reading unless {@code mode} is null (read(Path, Mode)). */
  static History read(String source, InputStream in, int buffer, Independent.Mode mode)
      throws HistoryParseException {
    return read(source, in, buffer, mode, null, -1);
  }

  /**
   * As above; {@code in} reads {@code file} if that is not null, which is then read by
   * {@link TwoHalves} if it is EDN without a byte-order mark, split at {@code splitAt} (-1: the
   * middle; tests give others).
   */
  static History read(String source, InputStream in, int buffer, Independent.Mode mode,
      Path file, long splitAt) throws HistoryParseException {
    // enough bytes for PROBE characters of any UTF-8 text
    byte[] head = new byte[4 * PROBE];
    int n = 0;
    try {
      for (int r; n < head.length && (r = in.read(head, n, head.length - n)) > 0; ) {
        n += r;
      }
    } catch (IOException e) {
      throw new HistoryParseException(source, 0, "cannot read: " + e, e);
    }
    int bom = n >= 3 && (head[0] & 0xFF) == 0xEF && (head[1] & 0xFF) == 0xBB
        && (head[2] & 0xFF) == 0xBF ? 3 : 0;
    if (bom > 0) {
      n -= bom;
      System.arraycopy(head, bom, head, 0, n);
    }
    String prefix = new String(head, 0, n, StandardCharsets.UTF_8);
    if (prefix.length() > PROBE) {
      prefix = prefix.substring(0, PROBE);
    }
    Format format = detect(source, prefix);
    if (n < head.length) {
      buffer = Math.min(buffer, Math.max(n, 16)); // the whole text is in head: no bigger buffer
    }
    int given = Math.min(n, buffer);
    InputStream rest = given == n ? in
        : new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(head, given, n - given),
            in);
    List<Op> ops = mode == null ? new ArrayList<>() : new SplitWhileReading(source, mode);
    boolean collection = false;
    switch (format) {
      case EDN:
        collection = file != null && bom == 0
            ? TwoHalves.read(source, file, head, given, rest, ops, buffer, splitAt)
            : FastEdnHistoryReader.read(source, head, given, rest, ops, buffer);
        break;
      case JSON_LINES:
        JsonLinesReader.read(source, head, given, rest, ops, buffer);
        break;
      default:
        JepsenLogReader.read(source, head, given, rest, ops, buffer);
        break;
    }
    if (ops instanceof SplitWhileReading) {
      notEmpty(source, format, ops, collection); // an error of reading comes first, as before
      return new History(source, ((SplitWhileReading) ops).finish());
    }
    return history(source, format, ops, collection);
  }

  private static History history(String source, Format format, List<Op> ops, boolean collection)
      throws HistoryParseException {
    notEmpty(source, format, ops, collection);
    return new History(source, ops);
  }

  private static void notEmpty(String source, Format format, List<Op> ops, boolean collection)
      throws HistoryParseException {
    if (ops.isEmpty() && !collection) {
      throw new HistoryParseException(source, 1, "no operations found: expected " + format
          + " operations (an empty history is written [])");
    }
  }

  /**
   * Reads a history from text.
   *
   * @param source the name to use in messages
   * @throws HistoryParseException if the text holds no history or is malformed
   */
  public static History parse(String source, String text) throws HistoryParseException {
    // through the bytes, as a file is read
    return read(source, new java.io.ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Reads a history from a stream of text, one operation at a time, by the general readers
   * (Clojure's EDN reader, Jackson, regular expressions): what the readers of bytes
   * ({@link #read(String, InputStream)}) are held to.
   *
   * @param source the name to use in messages
   * @throws HistoryParseException if the text holds no history or is malformed
   */
  public static History read(String source, Reader text) throws HistoryParseException {
    BufferedReader in = new BufferedReader(text, 1 << 16);
    String prefix;
    try {
      in.mark(PROBE + 1);
      char[] buf = new char[PROBE];
      int n = 0;
      for (int r; n < PROBE && (r = in.read(buf, n, PROBE - n)) > 0; ) {
        n += r;
      }
      in.reset();
      if (n > 0 && buf[0] == '\uFEFF') {
        in.read();
      }
      prefix = new String(buf, 0, n);
    } catch (IOException e) {
      throw new HistoryParseException(source, 0, "cannot read: " + e, e);
    }
    if (prefix.startsWith("\uFEFF")) {
      prefix = prefix.substring(1);
    }
    Format format = detect(source, prefix);
    List<Op> ops = new ArrayList<>();
    boolean collection = false;
    switch (format) {
      case EDN:
        collection = EdnHistoryReader.read(source, in, ops);
        break;
      case JSON_LINES:
        JsonLinesReader.read(source, in, ops);
        break;
      default:
        JepsenLogReader.read(source, in, ops);
        break;
    }
    return history(source, format, ops, collection);
  }

  /**
   * Writes a history in a format: EDN (one map per line), JSON lines, or Jepsen log lines. What is
   * written reads back as the same operations (line numbers aside; sets become arrays in JSON).
   */
  public static String write(History history, Format format) {
    return HistoryWriter.write(history, format);
  }

  /**
   * Writes a history to a file.
   *
   * @throws java.io.UncheckedIOException if the file cannot be written
   */
  public static void write(History history, Format format, Path file) {
    try {
      Files.writeString(file, write(history, format));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot write " + file, e);
    }
  }

  /**
   * Builds a history from operation maps already in memory (e.g. Clojure maps from a Jepsen
   * test): each is normalised like EDN read from a file.
   *
   * @param source the name to use in messages; "line" in them is the map's 1-based position
   * @throws HistoryParseException if a map is not an operation
   */
  public static History fromMaps(String source, Iterable<?> maps) throws HistoryParseException {
    if (maps == null) {
      throw new HistoryParseException(source, 0, NO_HISTORY);
    }
    List<Op> ops = new java.util.ArrayList<>();
    for (Object m : maps) {
      Object normal;
      try {
        normal = Values.normalize(m);
      } catch (IllegalArgumentException e) {
        throw new HistoryParseException(
            source, ops.size() + 1, "expected plain data: " + e.getMessage(), e);
      }
      ops.add(OpMaps.toOp(normal, ops.size(), ops.size() + 1, source));
    }
    return new History(source, ops);
  }

  /**
   * The message for a history that is not there (a null/nil object): bad input everywhere, as an
   * empty file is on the command line, while an empty sequence is a valid empty history.
   */
  public static final String NO_HISTORY =
      "no history (nil): expected a sequence of operations; an empty one is a valid empty history";

  /**
   * Recognises the format of a history text.
   *
   * @throws HistoryParseException if the text is empty or in no known format
   */
  public static Format detect(String source, String text) throws HistoryParseException {
    int i = 0;
    int n = text.length();
    while (i < n && (Character.isWhitespace(text.charAt(i)) || text.charAt(i) == ',')) {
      i++;
    }
    if (i == n) {
      throw new HistoryParseException(
          source, 1, "empty file: expected a history (EDN maps, JSON lines or Jepsen log lines)");
    }
    char c = text.charAt(i);
    if (c == '{') {
      int j = i + 1;
      while (j < n && Character.isWhitespace(text.charAt(j))) {
        j++;
      }
      return j < n && text.charAt(j) == '"' ? Format.JSON_LINES : Format.EDN;
    }
    if (c == '[' || c == '(' || c == ';' || c == '#') {
      return Format.EDN;
    }
    int probe = Math.min(n, 1 << 16);
    if (text.substring(0, probe).contains(JepsenLogReader.MARKER)) {
      return Format.JEPSEN_LOG;
    }
    int line = 1;
    for (int k = 0; k < i; k++) {
      if (text.charAt(k) == '\n') {
        line++;
      }
    }
    throw new HistoryParseException(
        source,
        line,
        "unrecognized history format: expected EDN maps like "
            + OpMaps.EXAMPLE
            + ", a vector of them, JSON lines, or Jepsen log lines (INFO  jepsen.util - 0 :invoke"
            + " :read nil)");
  }
}
