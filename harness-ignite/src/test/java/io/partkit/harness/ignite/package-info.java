/** Tests of the ignite system that need no cluster, or one of its own. */
package io.partkit.harness.ignite;
