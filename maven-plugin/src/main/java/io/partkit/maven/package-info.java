/**
 * partkit's Maven plugin: {@link io.partkit.maven.VerifyMojo partkit:verify} runs a system of the
 * project's own under faults, {@link io.partkit.maven.CheckMojo partkit:check} checks recorded
 * histories; both in a forked JVM running partkit-cli, and a verdict other than valid fails the
 * build.
 */
package io.partkit.maven;
