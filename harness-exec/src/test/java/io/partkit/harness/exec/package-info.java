/** Tests of the exec system: the template, the client protocol, and whole runs of the example. */
package io.partkit.harness.exec;
