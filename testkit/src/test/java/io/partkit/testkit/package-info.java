/** Tests of the kits themselves: a kit that cannot fail proves nothing. */
package io.partkit.testkit;
