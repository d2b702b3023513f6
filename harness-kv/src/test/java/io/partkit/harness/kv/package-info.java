/** Tests of the kv system under the harness that need its package's access, on real nodes. */
package io.partkit.harness.kv;
