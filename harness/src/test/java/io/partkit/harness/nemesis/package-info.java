/** Tests of {@code io.partkit.harness.nemesis}. */
package io.partkit.harness.nemesis;
