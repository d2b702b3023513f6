/** Tests of the SPI's value types, discovery and configuration. */
package io.partkit.spi;
