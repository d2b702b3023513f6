/** The minimal provider docs/harness.md shows, compiled and run so that the page cannot rot. */
package io.partkit.harness.testkit.minimal;
