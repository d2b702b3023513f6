/** Tests of the Knossos drop-in API. */
package io.partkit.knossos;
