/** The live-migration benchmark of the reference data plane (a main class, not a test). */
package io.partkit.kvstore.bench;
