/** A verify run whose container engine goes away mid-run. */
package io.partkit.harness.runtime;
