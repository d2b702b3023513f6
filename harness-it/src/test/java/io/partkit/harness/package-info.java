/** Whole verify runs of partkit's systems on every runtime (the systems meet the core here). */
package io.partkit.harness;
