package io.partkit.maven;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.maven.artifact.Artifact;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugins.annotations.Parameter;

/** What both goals share: skipping, JVM arguments, and running partkit forked. */
abstract class AbstractPartkitMojo extends AbstractMojo {

  /** Skips the goal (as {@code -DskipTests} does for tests). */
  @Parameter(property = "partkit.skip", defaultValue = "false")
  boolean skip;

  /** Extra arguments of partkit's JVM, e.g. {@code -Xmx2g} for a long history. */
  @Parameter(property = "partkit.jvmArgs")
  List<String> jvmArgs = new ArrayList<>();

  /** This plugin's own artifacts: partkit-cli and everything it runs with. */
  @Parameter(defaultValue = "${plugin.artifacts}", readonly = true, required = true)
  List<Artifact> pluginArtifacts;

  /** Runs partkit with {@code args}; its output goes to the build's log as it comes. */
  PartkitFork.Result partkit(List<String> args, Map<String, String> env)
      throws MojoExecutionException {
    List<File> classPath = new ArrayList<>();
    for (Artifact a : pluginArtifacts) {
      if (a.getFile() != null && a.getArtifactHandler().isAddedToClasspath()) {
        classPath.add(a.getFile());
      }
    }
    getLog().info("partkit " + String.join(" ", args));
    return PartkitFork.run(classPath, jvmArgs, args, env, getLog()::info);
  }

  /** {@code --name value} when the value was given; partkit's own default otherwise. */
  static void option(List<String> args, String name, Object value) {
    if (value != null && !value.toString().isBlank()) {
      args.add(name);
      args.add(value.toString());
    }
  }
}
