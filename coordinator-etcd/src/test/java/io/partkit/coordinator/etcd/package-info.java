/** Tests of the etcd store against real etcd processes (see {@link io.partkit.testkit.EtcdCluster}). */
package io.partkit.coordinator.etcd;
