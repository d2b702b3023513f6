/** Tests of the {@code partkit} command, each command through picocli's {@code CommandLine}. */
package io.partkit.cli;
