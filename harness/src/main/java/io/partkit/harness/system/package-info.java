/**
 * What a system under test is to the harness, and how a system of your own plugs in: a
 * {@link io.partkit.harness.system.SystemProvider} listed in {@code META-INF/services} (found by
 * {@link io.partkit.harness.system.Systems}) creates a
 * {@link io.partkit.harness.system.SystemUnderTest}, whose faults are the
 * {@link io.partkit.harness.system.Capability} interfaces it implements; a system made of node
 * processes extends {@link io.partkit.harness.system.NodeProcessSystem}. Its recording clients
 * perform {@link io.partkit.harness.system.Operation}s on one register per key and record
 * {@link io.partkit.harness.system.Outcome}s honestly (ok, fail only when it surely did not
 * happen, info when unknown). partkit's own systems live in the harness-kv, harness-etcd,
 * harness-hazelcast and harness-ignite modules.
 */
package io.partkit.harness.system;
