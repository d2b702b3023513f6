package io.partkit.kvstore.node;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Deliberate bugs a node can be started with ({@code KvNodeMain --unsafe-test-fault NAME}), so a
 * fault-injection harness can prove that it notices a store that loses data. Each one breaks one
 * rule the store depends on; none is ever on unless asked for, and nothing but tests should ask.
 */
enum UnsafeTestFault {
  /** Correct behaviour. */
  NONE,
  /**
   * Acknowledge a write before it is in the write-ahead log and never log it, so a restart
   * (after {@code kill -9}) comes back without it: "acknowledged before the log was synced".
   */
  ACK_BEFORE_LOG,
  /** A fenced source keeps serving reads and writes while its partition is copied away. */
  SERVE_WHILE_FENCED,
  /**
   * Skip the epoch check: an owner serves requests carrying an older epoch, and a node whose
   * partition was dropped after a migration keeps serving clients whose table is stale.
   */
  SKIP_EPOCH_CHECK,
  /**
   * A primary acknowledges a write once it holds it, without sending it to its backups, so a
   * primary lost for good takes those writes with it: "acknowledged before replication".
   */
  SKIP_REPLICATION;

  /** The command-line name: lower case with '-', e.g. {@code ack-before-log}. */
  String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The fault with that command-line name.
   *
   * @throws IllegalArgumentException naming the known faults
   */
  static UnsafeTestFault parse(String name) {
    for (UnsafeTestFault f : values()) {
      if (f.cliName().equals(name)) {
        return f;
      }
    }
    throw new IllegalArgumentException("unknown test fault '" + name + "': expected one of "
        + Arrays.stream(values()).map(UnsafeTestFault::cliName).collect(Collectors.joining(", ")));
  }
}
