/** Tests of {@code io.partkit.verification.checker}. */
package io.partkit.verification.checker;
