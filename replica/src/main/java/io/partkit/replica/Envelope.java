package io.partkit.replica;

/**
 * A message with its sender and addressee. Endpoints are numbers the driver gives out: nodes,
 * the control ({@link Control#ID}) and clients.
 */
public record Envelope(int from, int to, Message message) {}
