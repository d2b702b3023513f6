/** Tests of {@code io.partkit.verification.model}. */
package io.partkit.verification.model;
