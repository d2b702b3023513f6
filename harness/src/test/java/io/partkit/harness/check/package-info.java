/** Tests of {@code io.partkit.harness.check}. */
package io.partkit.harness.check;
