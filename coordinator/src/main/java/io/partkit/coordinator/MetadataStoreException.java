package io.partkit.coordinator;

/**
 * A metadata store could not do what was asked: unreachable, timed out, or it holds data this
 * version cannot read. The message names the store ({@link MetadataStore#describe()}) and the
 * cause.
 */
public final class MetadataStoreException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** With a message naming the store and what failed. */
  public MetadataStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /** With a message naming the store and what failed. */
  public MetadataStoreException(String message) {
    super(message);
  }
}
