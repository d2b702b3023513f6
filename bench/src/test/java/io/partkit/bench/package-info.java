/** Tests of the benchmark harness, its measures and its report (opened in headless Chromium). */
package io.partkit.bench;
