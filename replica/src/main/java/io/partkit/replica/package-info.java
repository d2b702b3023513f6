/**
 * The Fixed Partitions protocol as deterministic state machines, after etcd's raft library: a
 * {@link io.partkit.replica.Replica} per node holds all of that node's partitions, a {@link
 * io.partkit.replica.Control} holds the coordinator's decisions (the table, its epochs, who is
 * up, who is level). Both take {@link io.partkit.replica.Message messages} and clock ticks and hand
 * back a {@link io.partkit.replica.Ready}: records to make durable, then messages to send.
 *
 * <p>Nothing here opens a socket or a file, starts a thread, takes a lock, reads a clock or draws a
 * random number: everything is passed in. A driver acts: the simulator drives whole clusters on
 * virtual time from one seed; a TCP node drives one replica with sockets, a write-ahead log and
 * wall-clock ticks.
 *
 * <p>The control's records ({@link io.partkit.replica.Record.ControlState}, one per change: the
 * table and the nodes it knows) are what the coordinator keeps in its linearizable store; {@link
 * io.partkit.replica.Control#restore} restarts a control from them.
 *
 * <p>The protocol in one paragraph. Each partition has a configuration at an epoch: a primary and
 * its backups. The primary orders a partition's requests in rounds, one round at a time: every
 * request queued while it was busy, executed in request order. The round's writes are logged
 * together, replicated to every backup and applied (made visible) only once all of them hold the
 * last; then every request of the round is answered in request order. A read is answered only
 * after every backup has confirmed, for its round, that it is still at the primary's epoch and
 * level (a round that writes: by acknowledging its writes). A scan (one partition's keys in a
 * range, in pages) is served as a read.
 * Each new epoch begins with the primary levelling its backups to its own state under a fresh
 * level number (offered by the name of its state, a whole snapshot to a backup that cannot take
 * the offer; a backup the control names joining while the partition serves); a backup accepts
 * replication only under the level it holds. The control
 * changes a configuration only to one whose new primary was a level member of the previous one,
 * and that member adopts the new epoch before it serves; so a deposed primary can no longer gather
 * the confirmations it needs, and no two primaries serve one partition at once.
 *
 * <p>Placement: by default the control deals the first table round robin and gives a partition
 * short of copies the least loaded node; given a {@link io.partkit.replica.Placement} (a partkit
 * strategy through {@link io.partkit.replica.strategy.StrategyPlacement}), it moves each
 * partition toward the placement's target with the same safe steps.
 *
 * <p>Splits: the control commits a split as the new numbering ({@link
 * io.partkit.replica.Partitioning}: one more bit of the key's hash) with the old owners at a new
 * epoch; each copy, primary or backup, divides itself by one logged record when the new numbering
 * reaches it, and refuses the old numbering from then on.
 *
 * <p>Merges undo a split: the control commits one ({@link io.partkit.replica.Control#merge}) only
 * when the two halves have one configuration, every member up and level in both, as the lower
 * half at half the modulus and one generation on, at an epoch past both; each member combines
 * its two copies by one logged record when the merged numbering reaches it, and refuses the old
 * numbering of both from then on. A merge that is not safe as the table stands is refused with
 * the reason ({@link io.partkit.replica.Control#whyNotMerge}).
 */
package io.partkit.replica;
