/** Tests of {@code io.partkit.harness.runtime}. */
package io.partkit.harness.runtime;
