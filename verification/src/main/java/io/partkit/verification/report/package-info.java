/**
 * Reports: the self-contained HTML picture of a checked history and the text rendering of an
 * analysis. (Timings are benchmarks, not reports: the corpus timing is cli's
 * {@code check --bench}, the others are in the test sources' {@code bench} package.)
 */
package io.partkit.verification.report;
