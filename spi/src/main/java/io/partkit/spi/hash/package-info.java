/**
 * Stable key hashing: the persisted format behind every placement.
 *
 * <p>A key's placement is a function of its hash, and placements are stored (partition tables,
 * data files, clients' caches), so the hash of a key must be the same on every JVM and in every
 * release. {@link io.partkit.spi.hash.KeyHash} names each variant; a variant's output never
 * changes, a new behaviour is a new constant. {@code Object.hashCode()} is never used: it is not
 * specified across JVMs for most types and is trivially colliding for others.
 */
package io.partkit.spi.hash;
