/**
 * The linearizability checker: {@link io.partkit.verification.checker.Linearizability#check}
 * takes a {@link io.partkit.verification.model.Model} and a
 * {@link io.partkit.verification.history.History} and returns an
 * {@link io.partkit.verification.checker.Analysis}: valid, invalid with evidence, or unknown with
 * its cause (a time limit or the memory guard; never a guess).
 */
package io.partkit.verification.checker;
