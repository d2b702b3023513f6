/**
 * Your own binaries under test ({@code --system exec}), in any language: every node is a process
 * started from a command template, ready when it prints a given line, and every worker's client
 * is a process of yours that reads one operation a line as JSON on its standard input and
 * answers one result a line on its standard output. Kill and pause come from the runtime, which
 * starts the nodes. The protocol: docs/harness.md, "Any language: the exec system".
 */
package io.partkit.harness.exec;
