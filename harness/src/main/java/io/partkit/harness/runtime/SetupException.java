package io.partkit.harness.runtime;

/**
 * The harness could not set up (or tear down) what a run needs: a missing binary, no root for
 * namespaces, a port in use, a node that never started. The message says what and how to fix it;
 * the command line exits with its own code for it, never the code of an invalid history.
 */
public final class SetupException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public SetupException(String message) {
    super(message);
  }

  public SetupException(String message, Throwable cause) {
    super(message, cause);
  }
}
