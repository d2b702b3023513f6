/**
 * Benchmarks of the checker, run by hand with a {@code main} each (see docs/checker-scale.md,
 * Porcupine side by side included): the histories they time (generated, seeded, or exported for
 * Porcupine's driver) and the timing loop they share. Test sources, not library code: nothing
 * here is part of verification's API, and the tests beside them only check that the corpora
 * have the verdicts they are built to have.
 */
package io.partkit.verification.bench;
