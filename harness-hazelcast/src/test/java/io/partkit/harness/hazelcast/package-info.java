/** Tests of the hazelcast system that need no cluster, or one of its own. */
package io.partkit.harness.hazelcast;
