/** Tests of what a connection to a node must prove and may cost. */
package io.partkit.replica.node.access;
