/**
 * The systems a run tests ({@link io.partkit.harness.system.SystemUnderTest}) and their recording
 * clients: operations on one register per key, outcomes recorded honestly (ok, fail only when it
 * surely did not happen, info when unknown).
 */
package io.partkit.harness.system;
