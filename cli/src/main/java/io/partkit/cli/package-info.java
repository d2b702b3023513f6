/**
 * The {@code partkit} command: {@link io.partkit.cli.PartkitCommand} with picocli subcommands
 * ({@code bench}, {@code check}, {@code strategies}), each a thin layer over a module's API.
 */
package io.partkit.cli;
