/**
 * Contract-test kits: one abstract JUnit 5 suite per SPI, which every implementation extends
 * with a short subclass.
 */
package io.partkit.testkit;
