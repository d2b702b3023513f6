/**
 * Contract-test kits: one abstract JUnit 5 suite per SPI. An implementation gets the whole
 * suite by extending the kit with a short subclass that says how to build it and what bounds it
 * promises (the pattern of Micrometer's {@code MeterRegistryCompatibilityKit} and Cassandra's
 * {@code PartitionerTestCase}). The test doubles and the etcd process harness the kits and
 * partkit's own tests share are in {@link io.partkit.test.support}.
 */
package io.partkit.testkit;
