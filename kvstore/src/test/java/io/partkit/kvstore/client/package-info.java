/** Tests of the routing client's parts: scan coverage, range scans and key spreading. */
package io.partkit.kvstore.client;
