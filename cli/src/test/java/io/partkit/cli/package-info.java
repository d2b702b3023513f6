/** Tests of the {@code partkit} command. */
package io.partkit.cli;
