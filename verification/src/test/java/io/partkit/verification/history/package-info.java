/** Tests of {@code io.partkit.verification.history}. */
package io.partkit.verification.history;
