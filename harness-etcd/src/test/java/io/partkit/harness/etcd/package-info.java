/** Tests of the etcd system that need no cluster, or one of its own. */
package io.partkit.harness.etcd;
