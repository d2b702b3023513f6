/**
 * The protocol between the kvstore's parts, not an API: it may change in any release. Frames and
 * their fields ({@code Wire}), requests and replies ({@code KvReply}), the shared-secret
 * handshake ({@code Handshake}), connections and their pool ({@code NodeConnection}, {@code
 * NodeConnectionPool}), a client of one node ({@code TcpNodeClient}, {@code KvNodeClient}), and
 * the encodings of a scan page, a partition's replication status and a partition scheme ({@code
 * ScanPage}, {@code NodeStatus}, {@code SchemeCodec}).
 *
 * <p>Its classes are public because the node, the client, the migration executor and the load
 * view all speak it, from their own packages; applications use {@code
 * io.partkit.kvstore.client.KvClient} instead.
 */
package io.partkit.kvstore.wire;
