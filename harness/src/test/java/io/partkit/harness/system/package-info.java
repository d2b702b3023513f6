/** Tests of the system SPI's own parts: checking a run's options. */
package io.partkit.harness.system;
