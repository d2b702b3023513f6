/** Tests of the load view: hot keys, a cluster's load and the load sampler. */
package io.partkit.kvstore.load;
