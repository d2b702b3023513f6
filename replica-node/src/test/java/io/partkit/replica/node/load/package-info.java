/** Tests of the shared load view: hot keys, meters and a cluster's load. */
package io.partkit.replica.node.load;
