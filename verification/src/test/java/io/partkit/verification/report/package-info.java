/** Tests of {@code io.partkit.verification.report}. */
package io.partkit.verification.report;
