package io.partkit.replica.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.partkit.replica.Message.Outcome;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A real full disk under a {@link ReplicaNodeMain} node process: its data directory is a 2 MiB
 * tmpfs mounted by the test, most of it taken by a file an operator frees later. The node whose
 * append fails stops with exit 74 naming the cause, rather than answering failures to everything
 * until someone restarts it; a start on the still-full disk fails the same way in one line (its
 * compaction at start has no room, unless the halted process left some) and leaves no temporary
 * file; once space is freed it starts and serves every write it acknowledged. Needs root (to
 * mount): skipped with the reason otherwise, but never when {@code CI=true}, where a mount that
 * fails fails the test.
 */
class FullDiskTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  final ReplicaClusterTest cluster = new ReplicaClusterTest();
  private Path disk;
  private boolean mounted;

  @BeforeEach
  void mountSmallDisk() throws Exception {
    boolean root = "root".equals(System.getProperty("user.name"));
    if (!root && !"true".equals(System.getenv("CI"))) {
      assumeThat(root).as("mounting a small tmpfs needs root: run the test as root to fill a"
          + " disk for real").isTrue();
    }
    disk = cluster.dir.resolve("data-0").toAbsolutePath();
    Files.createDirectories(disk);
    Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs",
        disk.toString()).redirectErrorStream(true).start();
    String out = new String(mount.getInputStream().readAllBytes(), UTF_8);
    assertThat(mount.waitFor()).as("mount -t tmpfs: " + out).isZero();
    mounted = true;
  }

  @AfterEach
  void unmount() throws Exception {
    cluster.stop();
    for (ReplicaClusterTest.Proc p : cluster.procs.values()) {
      p.process().waitFor(30, TimeUnit.SECONDS);
    }
    if (mounted) {
      // a process still ending keeps the mount busy: detach it then (-l), so no test leaves a
      // mount behind
      if (new ProcessBuilder("umount", disk.toString()).inheritIO().start().waitFor() != 0) {
        assertThat(new ProcessBuilder("umount", "-l", disk.toString()).inheritIO().start()
            .waitFor()).isZero();
      }
    }
  }

  @Test
  void aNodeWhoseDiskFillsStopsNamingTheCauseAndStartsAgainOnceSpaceIsFreed() throws Exception {
    fillStopAndRecover();
  }

  /**
   * The same with compactions while running, each needing room for the whole state beside the
   * log: the disk fills under an append or under a compaction, whichever comes first, and either
   * stops the node; a half-written compaction is gone once the node starts again.
   */
  @Test
  void aNodeThatCompactsWhileItsDiskFillsStopsAndLeavesNoTemporaryFile() throws Exception {
    cluster.nodeFlags = List.of("--compact-bytes", Integer.toString(256 << 10));
    fillStopAndRecover();
  }

  /** Waits until {@code p} listens (true) or ends (false), for a minute at most. */
  private static boolean awaitListeningOrEnd(ReplicaClusterTest.Proc p) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      String line = p.lines().poll(100, TimeUnit.MILLISECONDS);
      if (line != null && line.startsWith("REPLICA LISTENING")) {
        return true;
      }
      if (line == null && !p.process().isAlive()) {
        return false;
      }
    }
    throw new AssertionError("the start neither listened nor ended within a minute");
  }

  private void fillStopAndRecover() throws Exception {
    Path filler = disk.resolve("filler");
    Files.write(filler, new byte[1200 * 1024]); // what an operator frees later
    cluster.addresses.add(new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort()));
    cluster.controlAddress = new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort());
    cluster.nodeControls = List.of(cluster.controlAddress);
    cluster.startNode(0);
    cluster.startControl(1);
    ReplicaClusterTest.Proc node = cluster.procs.get(0);
    List<byte[]> acked = new ArrayList<>();
    byte[] value = new byte[16 << 10];
    try (ReplicaClient c = new ReplicaClient(cluster.controlAddress, cluster.addresses,
        TIMEOUT)) {
      byte[] first = "k0".getBytes(UTF_8);
      assertThat(ReplicaClusterTest.untilOk(() -> c.put(first, value)).outcome())
          .isEqualTo(Outcome.OK);
      acked.add(first);
      for (int i = 1; i < 1000; i++) {
        byte[] key = ("k" + i).getBytes(UTF_8);
        ReplicaClient.BytesResult r = c.put(key, value);
        if (r.outcome() != Outcome.OK) {
          break; // the node stopped under the client (unknown), or is stopping
        }
        acked.add(key);
      }
    }
    assertThat(acked.size()).as("writes acknowledged before the disk filled").isBetween(1, 999);
    assertThat(node.process().waitFor(60, TimeUnit.SECONDS)).as("the node stopped").isTrue();
    String err = Files.readString(cluster.dir.resolve("n0.log"));
    assertThat(node.process().exitValue()).as(err).isEqualTo(ReplicaNode.EXIT_IO);
    assertThat(err).containsPattern("stopping: .*(the write-ahead log|the log's compaction)"
        + " failed: .*No space left on device.*\\(exit status 74\\)");
    // a start on the still-full disk: its compaction at start has no room, unless the halted
    // process left some: a compaction in flight on its own thread when an append's failure
    // halts the process may remove its half-written file as it fails, or leave it for the next
    // start to remove first
    cluster.procs.remove(0);
    List<String> args = new ArrayList<>(List.of("--role", "node", "--id", "0", "--data",
        disk.toString(), "--nodes", cluster.list(cluster.addresses), "--control",
        cluster.list(cluster.nodeControls)));
    args.addAll(cluster.nodeFlags);
    ReplicaClusterTest.Proc again = cluster.spawn("n0-full", args);
    cluster.procs.put(0, again);
    boolean listening = awaitListeningOrEnd(again);
    String full = Files.readString(cluster.dir.resolve("n0-full.log"));
    if (listening) {
      assertThat(full).as("a start on a full disk serves only once its compaction found room")
          .contains("log compacted from");
      cluster.kill(0);
    } else {
      assertThat(again.process().exitValue()).as(full).isEqualTo(ReplicaNode.EXIT_IO);
      assertThat(full.lines().filter(l -> l.contains("node 0: cannot start: ")
          && l.contains("No space left on device"))).as(full).hasSize(1);
      assertThat(full).as("no stack trace").doesNotContain("\tat ");
      cluster.procs.remove(0);
    }
    assertThat(disk.resolve(Wal.NEXT)).as("no temporary file left").doesNotExist();

    Files.delete(filler);
    cluster.startNode(0);
    try (ReplicaClient c = new ReplicaClient(cluster.controlAddress, cluster.addresses,
        TIMEOUT)) {
      for (byte[] key : acked) {
        ReplicaClient.BytesResult r = ReplicaClusterTest.untilOk(() -> c.get(key));
        assertThat(r.outcome()).as(new String(key, UTF_8) + ": " + r.why())
            .isEqualTo(Outcome.OK);
        assertThat(r.value()).as(new String(key, UTF_8)).isEqualTo(value);
      }
      assertThat(ReplicaClusterTest.untilOk(() -> c.put("after".getBytes(UTF_8), new byte[1]))
          .outcome()).isEqualTo(Outcome.OK);
    }
    // the start that compacts is the one on the full disk when removing a halted compaction's
    // file gave it room, the start after the space was freed otherwise
    String starts = Files.readString(cluster.dir.resolve("n0-full.log"))
        + Files.readString(cluster.dir.resolve("n0.log"));
    assertThat(starts).as("a restart compacted").contains("log compacted from");
  }
}
