package io.partkit.bench;

/**
 * A client's hot-path lookup: key -> primary owner, returning the subject's own node object
 * (partkit {@code NodeId}, Ignite {@code ClusterNode}, ...), so the measured cost is the real one.
 */
@FunctionalInterface
public interface Lookup {

  /** The primary owner of {@code key}. */
  Object primaryOf(long key);
}
