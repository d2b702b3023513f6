/** Tests of {@code io.partkit.harness.system}. */
package io.partkit.harness.system;
