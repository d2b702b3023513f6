package io.partkit.verification.history;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads histories, recognising the format from the content: EDN maps (one per line, or a
 * vector of them), JSON lines, or Jepsen log lines.
 */
public final class Histories {
  private Histories() {}

  /** The formats {@link #read(Path)} recognises. */
  public enum Format { EDN, JSON_LINES, JEPSEN_LOG }

  /**
   * Reads a history file.
   *
   * @throws HistoryParseException if the file cannot be read, is empty, or is malformed; the
   *     message names the file, the line and what was expected
   */
  public static History read(Path file) throws HistoryParseException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new HistoryParseException(file.toString(), 0, "cannot read the file: " + e, e);
    }
    return parse(file.toString(), new String(bytes, StandardCharsets.UTF_8));
  }

  /**
   * Reads a history from text.
   *
   * @param source the name to use in messages
   * @throws HistoryParseException if the text is empty or malformed
   */
  public static History parse(String source, String text) throws HistoryParseException {
    String t = text.startsWith("\uFEFF") ? text.substring(1) : text;
    Format format = detect(source, t);
    List<Op> ops;
    switch (format) {
      case EDN:
        ops = EdnHistoryReader.read(source, t);
        break;
      case JSON_LINES:
        ops = JsonLinesReader.read(source, t);
        break;
      default:
        ops = JepsenLogReader.read(source, t);
        break;
    }
    if (ops.isEmpty()) {
      throw new HistoryParseException(source, 1, "no operations found: expected " + format + " operations");
    }
    return new History(source, ops);
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
    List<Op> ops = new java.util.ArrayList<>();
    for (Object m : maps) {
      Object normal;
      try {
        normal = Values.normalize(m);
      } catch (IllegalArgumentException e) {
        throw new HistoryParseException(source, ops.size() + 1, "expected plain data: " + e.getMessage(), e);
      }
      ops.add(OpMaps.toOp(normal, ops.size(), ops.size() + 1, source));
    }
    return new History(source, ops);
  }

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
      throw new HistoryParseException(source, 1, "empty file: expected a history (EDN maps, JSON lines or Jepsen log lines)");
    }
    char c = text.charAt(i);
    if (c == '{') {
      int j = i + 1;
      while (j < n && Character.isWhitespace(text.charAt(j))) {
        j++;
      }
      return j < n && text.charAt(j) == '"' ? Format.JSON_LINES : Format.EDN;
    }
    if (c == '[' || c == ';' || c == '#') {
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
    throw new HistoryParseException(source, line,
        "unrecognized history format: expected EDN maps like " + OpMaps.EXAMPLE
            + ", a vector of them, JSON lines, or Jepsen log lines (INFO  jepsen.util - 0 :invoke :read nil)");
  }
}
