/**
 * Contract-test kits: one abstract JUnit 5 suite per SPI. An implementation gets the whole
 * suite by extending the kit with a short subclass that says how to build it and what bounds it
 * promises (the pattern of Micrometer's {@code MeterRegistryCompatibilityKit} and Cassandra's
 * {@code PartitionerTestCase}). Beside the kits: the test doubles and harnesses they need
 * ({@link io.partkit.testkit.ManualClock}, {@link io.partkit.testkit.RecordingMigrationExecutor},
 * {@link io.partkit.testkit.EtcdCluster}).
 */
package io.partkit.testkit;
