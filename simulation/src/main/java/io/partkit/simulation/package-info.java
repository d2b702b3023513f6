/**
 * Deterministic simulation of the Fixed Partitions protocol, after TigerBeetle's and
 * FoundationDB's simulators: the {@link io.partkit.replica.Replica} cores of a whole cluster and
 * its {@link io.partkit.replica.Control} run in one thread on virtual time, with a simulated
 * network, disks, clock and coordinator's store (the control's records, from which a crashed
 * control restarts). A seed chooses everything: which faults this seed may use (swarm
 * testing), when they strike, every message's delay, loss and duplication, every torn write.
 * Clients run {@code partkit verify}'s register workload; each seed's history is checked for
 * linearizability and lost acknowledged writes. The same seed, build and options replay the same
 * run to the byte; a failing seed is shrunk to the fewest faults and the shortest time that still
 * fail. {@link io.partkit.replica.mutants.Mutant Mutants} plant realistic bugs to prove the checks
 * fail.
 */
package io.partkit.simulation;
