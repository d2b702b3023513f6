/** Tests of the protocol's encodings: frames, scan pages and partition schemes. */
package io.partkit.kvstore.wire;
