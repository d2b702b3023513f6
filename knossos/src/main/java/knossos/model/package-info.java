/** Knossos' model interface for the knossos.* namespaces of partkit-knossos. */
package knossos.model;
