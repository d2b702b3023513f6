/**
 * Contract-test kits: one abstract JUnit 5 suite per SPI that every implementation extends with a
 * short subclass, and the test doubles and harnesses they need ({@link io.partkit.testkit.ManualClock},
 * {@link io.partkit.testkit.RecordingMigrationExecutor}, {@link io.partkit.testkit.EtcdCluster}).
 */
package io.partkit.testkit;
