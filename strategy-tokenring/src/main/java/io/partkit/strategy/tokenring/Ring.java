package io.partkit.strategy.tokenring;

import io.partkit.spi.NodeId;

/**
 * Tokens in increasing signed order and the node that owns each: the owner of {@code tokens[i]}
 * is the primary of the range {@code (tokens[i-1], tokens[i]]}. Arrays are owned by the record
 * (package-private, never handed out).
 */
record Ring(long[] tokens, NodeId[] owners) {

  int size() {
    return tokens.length;
  }
}
