/**
 * Tests of the data plane: single node semantics and recovery in-process, the migration
 * contract against the embedded and etcd metadata stores, and multi-process clusters on loopback
 * where {@code kill -9} is real.
 */
package io.partkit.kvstore;
