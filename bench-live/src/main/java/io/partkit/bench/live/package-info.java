/**
 * {@code partkit bench --live}: real clusters started through the harness, a join, a graceful
 * leave and a kill under a steady client load, and what each system says it moved and how long it
 * rebalanced, next to what its placement predicts. {@link io.partkit.bench.live.LiveBench} runs
 * it; the figures are {@link io.partkit.bench.LiveResult}, which the bench's report renders.
 */
package io.partkit.bench.live;
