/** Tests of the command line, each command through its own {@code CommandLine}. */
package io.partkit.cli;
