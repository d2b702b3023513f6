/**
 * Models: pure step functions from (state, operation) to a new state or an inconsistency, in the
 * shape of Knossos' {@code knossos.model}. {@link io.partkit.verification.model.Models} has the
 * built-in ones by name ({@code register}, {@code cas-register}, {@code multi-register},
 * {@code mutex}, {@code set}, {@code fifo-queue}, {@code unordered-queue}, {@code kv}); users add
 * their own by implementing {@link io.partkit.verification.model.Model}.
 *
 * <p><b>Reads of nil.</b> Unlike Knossos' register (which accepts any {@code :ok} read of nil),
 * partkit takes an {@code :ok} completion's value as what the operation observed: an {@code :ok}
 * read of nil means the register held nil (it was never written, with the default initial value
 * nil). A read whose result is unknown must be an {@code :info} (or {@code :fail}) operation, and
 * then any value is accepted. The {@code kv} model reads an absent key as the empty string, so a
 * get of nil equals a get of {@code ""}. A set read and a queue dequeue of nil mean "empty".
 */
package io.partkit.verification.model;
