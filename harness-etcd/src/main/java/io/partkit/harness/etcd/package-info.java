/**
 * etcd as a system under test ({@code --system etcd}): members as processes of the {@code etcd}
 * binary, one register per key through jetcd; also the metadata store the kv system can run on.
 */
package io.partkit.harness.etcd;
