/**
 * Histories of operations in the Jepsen/Knossos sense, and their readers.
 *
 * <p>An {@link io.partkit.verification.history.Op} is one event: a process invokes an operation
 * ({@code :invoke}) and later completes it ({@code :ok}, {@code :fail}) or gives up knowing its
 * outcome ({@code :info}). {@link io.partkit.verification.history.Histories} reads EDN (Clojure's
 * own reader), Jepsen log lines and JSON lines, recognising the format from the content; any
 * malformed input fails with a {@link io.partkit.verification.history.HistoryParseException}
 * naming the file, the line and what was expected.
 * {@link io.partkit.verification.history.History#validate()} reports histories that are well-formed
 * text but not well-formed histories (an {@code :ok} without an invocation, two open invocations on
 * one process, ...).
 */
package io.partkit.verification.history;
