/**
 * Reports: the self-contained HTML picture of a checked history, the text rendering of an
 * analysis, and the corpus timing used to compare partkit with Porcupine.
 */
package io.partkit.verification.report;
