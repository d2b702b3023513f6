/**
 * Who may connect to a node and what a connection may cost it, shared by every node that serves
 * TCP connections (a replica node, its control): the cluster's {@link
 * io.partkit.replica.node.access.SharedSecret}, the {@link
 * io.partkit.replica.node.access.LoginHandshake} that proves it (an HMAC-SHA256 of a fresh
 * challenge; the framing is each node's own), the {@link
 * io.partkit.replica.node.access.ConnectionLimits} and the {@link
 * io.partkit.replica.node.access.Admission} that counts accepted connections against them
 * (deciding by {@code ConnectionGate}), and {@link io.partkit.replica.node.access.FrameBody},
 * which reads a frame without trusting its length prefix.
 *
 * <p>Nothing here knows a node's requests: it imports no other partkit package.
 */
package io.partkit.replica.node.access;
