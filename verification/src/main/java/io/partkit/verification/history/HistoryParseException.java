package io.partkit.verification.history;

/**
 * A history file (or text) could not be read: it names the source, the line and what was
 * expected. This is the only exception the readers throw for bad input.
 */
public final class HistoryParseException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final int line;
  private final String reason;

  public HistoryParseException(String source, int line, String message) {
    this(source, line, message, null);
  }

  public HistoryParseException(String source, int line, String message, Throwable cause) {
    super(source + ":" + line + ": " + message, cause);
    this.source = source;
    this.line = line;
    this.reason = message;
  }

  /** The file name (or a description of the text) that could not be read. */
  public String source() {
    return source;
  }

  /** The 1-based line where reading failed. */
  public int line() {
    return line;
  }

  /** What was expected, without the source and line (which the message starts with). */
  String reason() {
    return reason;
  }
}
