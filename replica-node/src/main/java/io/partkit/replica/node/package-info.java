/**
 * The real-process driver of the Fixed Partitions protocol ({@code io.partkit.replica}): {@link
 * io.partkit.replica.node.ReplicaNodeMain} runs one node (a replica core with its write-ahead log
 * on disk) or the control, on TCP with length-prefixed binary frames and wall-clock ticks, making
 * every record of a Ready durable before its messages leave; {@link
 * io.partkit.replica.node.ReplicaClient} routes a client's requests to each partition's primary as
 * the control's table names it, by each partition's number and modulus, so it follows splits (which
 * the control makes on commands read from its standard input); one client serves many threads
 * (a pool of connections per node), spreads a hot key's writes over sub-keys ({@link
 * io.partkit.replica.node.KeySpreading}), asks a node which partitions it holds ({@link
 * io.partkit.replica.node.ReplicaClient#partitions}) and scans a range lazily ({@link
 * io.partkit.replica.node.ReplicaScanner}). {@link
 * io.partkit.replica.node.ReplicaMigrationExecutor} runs the control in a partkit coordinator's
 * process instead, the coordinator's table its placement, its indices matched with the core's
 * partition numbers by span and its key-range splits and token-ring joins carried out as core
 * splits. The decisions are the core's, the same code the simulator runs.
 *
 * <p>A node meters the requests its replica serves around the core ({@code RequestMeters}, with
 * the meters and load view of {@link io.partkit.replica.node.load}) and
 * answers a client's load request with its view ({@link
 * io.partkit.replica.node.ReplicaClient#nodeLoad}) and what it received from other nodes to
 * create or level its copies ({@code ReceivedCounts}, counted off its replica's records; {@link
 * io.partkit.replica.node.ReplicaClient#received}).
 */
package io.partkit.replica.node;
