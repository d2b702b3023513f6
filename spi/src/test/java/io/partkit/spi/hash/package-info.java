/** Tests pinning the key-hash formats against their reference implementations. */
package io.partkit.spi.hash;
