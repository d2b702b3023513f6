/**
 * Tests of the etcd store against real etcd processes (see
 * {@link io.partkit.test.support.EtcdCluster}).
 */
package io.partkit.coordinator.etcd;
