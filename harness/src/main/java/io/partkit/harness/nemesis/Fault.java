package io.partkit.harness.nemesis;

/** A fault in force: what it did (for the history) and how to undo it. */
public interface Fault {

  /** What was done, e.g. {@code "kill n3"}; recorded as the nemesis op's value. */
  String description();

  /** Undoes it: restart, resume, heal the network, join again. */
  void heal();
}
