package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Outcome;
import io.partkit.replica.node.access.SharedSecret;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three node processes and a control on loopback, all given one secret ({@code --secret-file}):
 * the control settles (so the nodes and the control logged in to each other, and the nodes to
 * each other to level their backups), a client with the secret writes and reads back every key,
 * and clients without it or with another one get a definite failure that says why.
 */
class SharedSecretClusterTest {

  private final ReplicaClusterTest cluster = new ReplicaClusterTest();

  @AfterEach
  void stop() {
    cluster.stop();
  }

  @Test
  void aClusterWithASecretServesClientsThatProveItAndRefusesOthers() throws Exception {
    Files.createDirectories(cluster.dir);
    Path file = cluster.dir.resolve("secret");
    SharedSecret secret = SharedSecret.generate(file);
    cluster.nodeFlags = List.of("--secret-file", file.toString());
    cluster.controlFlags = List.of("--secret-file", file.toString());
    cluster.startCluster(3);
    try (ReplicaClient c = new ReplicaClient(List.of(cluster.controlAddress), cluster.addresses,
        Duration.ofSeconds(3), secret)) {
      for (long k = 0; k < ReplicaClusterTest.KEYS; k++) {
        cluster.write(c, k, k * 10, Duration.ofSeconds(30));
      }
      assertThat(cluster.acknowledged).as("writes acknowledged")
          .isEqualTo(ReplicaClusterTest.KEYS);
      cluster.readAll(c);
    }
    try (ReplicaClient none = new ReplicaClient(List.of(cluster.controlAddress),
        cluster.addresses, Duration.ofSeconds(2))) {
      ReplicaClient.Result r = none.put(1, 1);
      assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.FAIL);
      assertThat(r.why()).contains("requires the cluster's shared secret");
    }
    SharedSecret other = SharedSecret.generate(cluster.dir.resolve("other"));
    try (ReplicaClient wrong = new ReplicaClient(List.of(cluster.controlAddress),
        cluster.addresses, Duration.ofSeconds(2), other)) {
      ReplicaClient.Result r = wrong.get(1);
      assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.FAIL);
      assertThat(r.why()).contains("the secrets differ");
    }
  }
}
