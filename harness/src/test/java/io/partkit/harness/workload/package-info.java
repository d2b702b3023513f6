/** Tests of {@code io.partkit.harness.workload}. */
package io.partkit.harness.workload;
