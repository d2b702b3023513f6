/**
 * Tests of how partkit reaches its users: the BOM ({@code bom/pom.xml}) against the reactor's
 * modules, the module names, a consumer build that imports the BOM, and strategy discovery from
 * the packaged jars on the module path and on the class path. They live in bench because it is
 * the module that depends on the SPI and on every strategy; the {@code *IT} classes run under
 * failsafe, after the jars are packaged.
 */
package io.partkit.bench.packaging;
