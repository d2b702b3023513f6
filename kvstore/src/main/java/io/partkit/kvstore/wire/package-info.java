/**
 * The protocol between the kvstore's parts, not an API: it may change in any release. Frames and
 * their fields, operation codes, SPLIT phases, CONFIGURE roles and the address form ({@code
 * Wire}), requests and replies ({@code KvReply}), the shared-secret handshake ({@code
 * Handshake}), connections and their pool ({@code NodeConnection}, {@code NodeConnectionPool}),
 * a client of one node ({@code TcpNodeClient}, {@code KvNodeClient}), and the encodings of a scan
 * page with its argument check, a partition's replication status, a node's suspects, what a
 * node received to create copies and a partition scheme ({@code ScanPage}, {@code NodeStatus},
 * {@code SuspectsReport}, {@code ReceivedCopies}, {@code SchemeCodec}).
 *
 * <p>The bottom layer but one: it imports {@code io.partkit.kvstore} (the shared vocabulary)
 * and nothing else of the kvstore, so that the node, the client, the load view and the migration
 * executor can all speak it. What the node and its readers must agree on, defaults included
 * (the largest frame, the idle time after which a node may close a connection), is defined here
 * or below, never taken from a package above.
 *
 * <p>Its classes are public because those packages use them from outside this one;
 * applications use {@code io.partkit.kvstore.client.KvClient}.
 */
package io.partkit.kvstore.wire;
