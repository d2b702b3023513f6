/**
 * partkit on Hazelcast 5.x.
 *
 * <p>Hazelcast assigns partitions to members internally and offers no hook to replace that
 * (only member groups shape it). So the adapter works at the three points Hazelcast does open:
 * <ul>
 *   <li>{@link io.partkit.backend.hazelcast.HazelcastPlacement}: Hazelcast's key -> partition
 *       mapping, exactly, and its inverse (a partition key per partition id);
 *   <li>{@link io.partkit.backend.hazelcast.PartkitPartitioningStrategy}: makes a map place keys
 *       by partkit's stable key hash;
 *   <li>{@link io.partkit.backend.hazelcast.HazelcastMembers}: partkit member identity and zone
 *       or rack labels as Hazelcast member attributes and zone-aware member groups;
 *   <li>{@link io.partkit.backend.hazelcast.HazelcastAssignments}: Hazelcast's actual partition
 *       owners as a partkit {@link io.partkit.spi.PartitionAssignment}, once or on every
 *       migration, for partkit's statistics.
 * </ul>
 */
package io.partkit.backend.hazelcast;
