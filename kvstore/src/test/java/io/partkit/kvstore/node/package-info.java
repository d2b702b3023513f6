/**
 * Tests of a single node in-process: requests and fencing, the write-ahead log and its recovery,
 * replication, pre-copy, splits, scans, connection limits, the shared secret, metrics and the
 * deliberate test faults.
 */
package io.partkit.kvstore.node;
