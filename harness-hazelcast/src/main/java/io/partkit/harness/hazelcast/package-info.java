/**
 * Hazelcast as a system under test ({@code --system hazelcast}): members as child JVMs, Java
 * clients on one IMap, and the placement check of partkit's partitioning strategy.
 */
package io.partkit.harness.hazelcast;
