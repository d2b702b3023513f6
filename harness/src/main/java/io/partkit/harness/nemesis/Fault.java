package io.partkit.harness.nemesis;

/** A fault in force: what it did (for the history) and how to undo it. */
public interface Fault {

  /** What was done, e.g. {@code "kill n3"}; recorded as the nemesis op's value. */
  String description();

  /** Undoes it: restart, resume, heal the network, join again. */
  void heal();

  /**
   * False when the attempt changed nothing (no migration was caught in flight): then it is not
   * counted, held or shaded as a fault, and the schedule tries again.
   */
  default boolean injected() {
    return true;
  }
}
