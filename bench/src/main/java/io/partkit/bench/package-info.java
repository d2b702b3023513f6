/**
 * The comparative benchmark: partkit's strategies and the native placements they compete with
 * (Ignite's {@code RendezvousAffinityFunction}, Hazelcast's partition service, Cassandra-style
 * random vnodes, Guava's jump hash), measured side by side through one harness, and the report
 * (HTML with inline SVG, JSON, CSV) that shows the figures.
 *
 * <p>Entry points: {@link io.partkit.bench.BenchOptions} says what to run,
 * {@link io.partkit.bench.Bench#run} runs it and {@link io.partkit.bench.Report#write} writes the
 * report. Subjects are (name, configuration) pairs: a partkit strategy is found through
 * {@link io.partkit.spi.Partitioners}, so a strategy whose jar is missing is reported in the run,
 * not fatal to it.
 */
package io.partkit.bench;
