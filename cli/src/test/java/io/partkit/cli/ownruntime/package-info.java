/**
 * A runtime from outside the harness module, as a user's jar would add one: a {@link
 * io.partkit.harness.runtime.RuntimeProvider} listed in this module's test {@code
 * META-INF/services}, with an option of its own, delegating to the processes runtime.
 */
package io.partkit.cli.ownruntime;
