/**
 * Tests of the whole data plane on multi-process clusters on loopback, where {@code kill -9} is
 * real ({@code ProcessCluster}: node processes, a coordinator process, a routing client), and the
 * wiring of a {@code KvMigrationExecutor} to a coordinator's store that the migration tests and
 * the benchmarks share ({@code StoreWiring}). The tests of one part are in its package.
 */
package io.partkit.kvstore;
