/**
 * Tests of the Hazelcast backend: {@link io.partkit.backend.hazelcast.HazelcastPlacement} against
 * Hazelcast's serializer and partition service on generated keys, and the adapters on real
 * in-JVM members joined over TCP on 127.0.0.1.
 */
package io.partkit.backend.hazelcast;
