package io.partkit.replica.node;

/**
 * A page of a {@link ReplicaScanner} not had within the client's timeout (no table, every attempt
 * refused or unanswered), or a page a node answered wrongly (keys out of order or out of range).
 * A scan changes nothing, so nothing is undone: the scanner stays where it was, and asking it
 * again ({@link ReplicaScanner#hasNext}) asks for the page again.
 */
public final class ScanFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** A failure saying {@code message}. */
  public ScanFailedException(String message) {
    super(message);
  }
}
