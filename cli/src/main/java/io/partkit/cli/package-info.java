/** The {@code partkit} command line: picocli commands over partkit's modules. */
package io.partkit.cli;
