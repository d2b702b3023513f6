/** Tests of the fixtures themselves. */
package io.partkit.test.support;
