/**
 * Apache Ignite as a system under test ({@code --system ignite}): server nodes as child JVMs with
 * partkit's affinity function, thin clients, and the placement check against partkit's
 * prediction.
 */
package io.partkit.harness.ignite;
