/** Tests of the plugin's goals, run by a child Maven on projects outside the reactor. */
package io.partkit.maven;
