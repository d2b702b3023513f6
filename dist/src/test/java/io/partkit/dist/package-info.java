/** Tests of the distribution archive, unpacked and run as a user runs it. */
package io.partkit.dist;
