package io.partkit.kvstore.node;

import java.io.IOException;

/**
 * A write-ahead log shorter than what the node had made durable (cut short, replaced by another
 * copy, or deleted), holding partitions that have no other copy: starting would serve less than
 * was acknowledged without a word. The node refuses to start and leaves the log as it found it;
 * the message names the file, what is missing and how to recover.
 */
public final class LostLogRecordsException extends IOException {

  LostLogRecordsException(String message) {
    super(message);
  }
}
