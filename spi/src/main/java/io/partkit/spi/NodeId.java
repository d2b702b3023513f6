package io.partkit.spi;

import static java.util.Objects.requireNonNull;

/**
 * The stable identity of a cluster member. It outlives restarts and address changes (Ignite's
 * {@code consistentId}, not its per-start node UUID), because placement is derived from it: a
 * node that comes back under the same id gets the same partitions back.
 *
 * <p>Ordering is by {@link String#compareTo}, which is what every strategy sorts by so that
 * placement never depends on the order members were listed in.
 *
 * @param value non-blank, at most 256 characters, no control characters
 */
public record NodeId(String value) implements Comparable<NodeId> {

  /** The longest id accepted: ids travel in every partition table and every stored key. */
  public static final int MAX_LENGTH = 256;

  /**
   * @throws IllegalArgumentException if the value is blank, too long or has control characters
   */
  public NodeId {
    requireNonNull(value, "node id");
    if (value.isBlank()) {
      throw new IllegalArgumentException("node id must not be blank: '" + value + "'");
    }
    if (value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "node id must be at most " + MAX_LENGTH + " characters: " + value.length());
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new IllegalArgumentException(
            "node id must not contain control characters (index " + i + "): '" + value + "'");
      }
    }
  }

  /** Shorthand for {@code new NodeId(value)}. */
  public static NodeId of(String value) {
    return new NodeId(value);
  }

  @Override
  public int compareTo(NodeId other) {
    return value.compareTo(other.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
