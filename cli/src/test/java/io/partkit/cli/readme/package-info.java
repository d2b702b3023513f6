/**
 * The README's first example as a compiled source file. {@code ReadmeExampleTest} runs it, checks
 * what its comments say, and fails when README.md's first {@code java} block is not exactly the
 * text between the markers of {@code FirstExample.java}.
 */
package io.partkit.cli.readme;
