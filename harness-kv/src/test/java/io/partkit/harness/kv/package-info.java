/** Tests of the kv system: its placement rule and checks, its rebalances, verify runs of it. */
package io.partkit.harness.kv;
