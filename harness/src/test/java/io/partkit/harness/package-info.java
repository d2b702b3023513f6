/** Tests of {@code io.partkit.harness}. */
package io.partkit.harness;
