/**
 * The {@code partkit} command: {@link io.partkit.cli.PartkitCommand} with picocli subcommands
 * ({@code check}; more are added to its {@code subcommands} list).
 */
package io.partkit.cli;
