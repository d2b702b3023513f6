/**
 * Test fixtures shared by the contract kits and partkit's own tests: a manual clock
 * ({@link io.partkit.test.support.ManualClock}), a migration executor that records what it is
 * asked to do ({@link io.partkit.test.support.RecordingMigrationExecutor}) and real etcd
 * processes ({@link io.partkit.test.support.EtcdCluster};
 * {@link io.partkit.test.support.EtcdMember} for one member per test class;
 * {@link io.partkit.test.support.RequiresEtcd} to skip without etcd), and for the packaging
 * tests a local Maven repository of a test's own with the Maven that builds a project outside the
 * reactor against it ({@link io.partkit.test.support.PrivateRepository}), and the latency
 * figures the benchmarks report ({@link io.partkit.test.support.LatencySamples}).
 *
 * <p>They are apart from the kits because the kits depend on the coordinator (they test its
 * API) while the coordinator's own tests need these fixtures: one module for both would be a
 * cycle. This module depends on the SPI alone (plus Jackson, for etcd's status JSON).
 */
package io.partkit.test.support;
