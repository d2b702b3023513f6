package io.partkit.harness.runtime;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * What the containers runtime needs: a Docker engine that answers and partkit's node image in it.
 * Missing, a test fails under {@code CI=true} (CI starts the engine and builds the image: see
 * {@code .ci/run}) and is skipped elsewhere, saying how to get them.
 */
public final class ContainerPrerequisite {

  private ContainerPrerequisite() {}

  /** Fails or skips the calling test when the engine or the image is missing. */
  public static void require() {
    String why;
    try {
      DockerEngine.requireImage(DockerEngine.client(), ContainerRuntime.DEFAULT_IMAGE,
          DockerEngine.host());
      return;
    } catch (SetupException e) {
      why = "the containers runtime tests need " + e.getMessage();
    }
    if ("true".equals(System.getenv("CI"))) {
      fail(why);
    }
    Assumptions.assumeTrue(false, why);
  }
}
