package io.partkit.harness.runtime;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Network;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.testcontainers.dockerclient.DockerClientProviderStrategy;
import org.testcontainers.dockerclient.TransportConfig;

/**
 * The Docker engine as the containers runtime reaches it: a client made by Testcontainers'
 * transport for an engine host partkit chooses, the image check, and the clean-up that replaces
 * Testcontainers' Ryuk.
 *
 * <p>Why not {@code DockerClientFactory} (what {@code GenericContainer} uses): it configures
 * itself from the user's environment and home directory, and on an engine without a registry it
 * cannot start. It resolves the engine's host address through the default {@code bridge} network
 * when it runs inside a container ("network bridge not found" on an engine started with {@code
 * --bridge=none}), runs a mount check that pulls {@code alpine:3.17} (minutes of retries without a
 * registry), and starts Ryuk, whose image cannot be pulled either; its {@code isDockerAvailable()}
 * then answers false although the engine runs. partkit needs none of that: nodes are reached at
 * their own addresses on the run's network, never through published ports, and clean-up is done
 * by labels ({@link #removeStale}). So the client is made from {@link TransportConfig} directly:
 * no checks, no Ryuk, no host address resolution.
 *
 * <p>The engine host is {@code DOCKER_HOST} when set (Docker's own convention, which every client
 * honours), else {@code unix:///var/run/docker.sock}.
 */
final class DockerEngine {

  /** Every container and network partkit makes carries this label (value: {@link #OWNER}). */
  static final String OWNER_LABEL = "io.partkit.owner";
  /** The run a container or network belongs to (the network's name). */
  static final String RUN_LABEL = "io.partkit.run";

  /**
   * Who made a container: this kernel's boot, this process's pid namespace and pid. A run whose
   * owner shares the boot and the pid namespace but whose pid is gone died without cleaning up.
   */
  static final String OWNER = bootId() + "/" + pidNamespace() + "/" + ProcessHandle.current().pid();

  private static final String HOW_TO_START = "start one, e.g. as root: dockerd --iptables=false "
      + "--ip6tables=false --bridge=none --storage-driver=overlay2 > /tmp/dockerd.log 2>&1 & "
      + "(see docs/development.md), or use --runtime processes or netns";

  private static final Map<String, DockerClient> CLIENTS = new HashMap<>();

  private DockerEngine() {}

  /** Where the engine is: {@code DOCKER_HOST} or the default unix socket. */
  static String host() {
    String env = System.getenv("DOCKER_HOST");
    return env == null || env.isBlank() ? "unix:///var/run/docker.sock" : env.strip();
  }

  /** A client of the engine at {@link #host()}; see {@link #client(String)}. */
  static DockerClient client() {
    return client(host());
  }

  /**
   * A client of the engine at {@code host} that answered a ping, made once per JVM and host.
   *
   * @throws SetupException naming the engine host and how to start an engine when none answers
   */
  static synchronized DockerClient client(String host) {
    DockerClient client = CLIENTS.get(host);
    if (client == null) {
      try {
        client = DockerClientProviderStrategy.getClientForConfig(
            TransportConfig.builder().dockerHost(URI.create(host)).build());
      } catch (RuntimeException e) {
        throw new SetupException("no Docker engine: cannot make a client for " + host + " ("
            + e.getMessage() + "); " + HOW_TO_START, e);
      }
    }
    try {
      client.pingCmd().exec();
    } catch (RuntimeException e) {
      throw new SetupException("no Docker engine answers at " + host + " (" + rootMessage(e)
          + "): --runtime containers needs one; " + HOW_TO_START, e);
    }
    CLIENTS.put(host, client);
    return client;
  }

  /** True when an engine answers a ping. */
  static boolean available() {
    try {
      client();
      return true;
    } catch (SetupException e) {
      return false;
    }
  }

  /**
   * Fails unless {@code image} is in the engine (nothing is ever pulled: a pull without a
   * registry hangs for minutes).
   *
   * @throws SetupException naming the command that builds or pulls it
   */
  static void requireImage(DockerClient docker, String image, String host) {
    try {
      docker.inspectImageCmd(image).exec();
    } catch (NotFoundException e) {
      throw new SetupException(missingImage(image, host), e);
    }
  }

  /** What to say when {@code image} is not in the engine: the command that builds or pulls it. */
  static String missingImage(String image, String host) {
    String how = image.equals(ContainerRuntime.DEFAULT_IMAGE)
        ? "build it with tools/build-node-image (as root, with Debian's mirror, debootstrap and "
            + "the engine; about 2 minutes)"
        : "pull or build it first (docker pull " + image + "); it needs java 17 on the PATH, "
            + "sh, mkfifo, grep, setpriv and, for partitions, nft";
    return "image " + image + " is not in the Docker engine at " + host + ": " + how;
  }

  /**
   * Removes the containers and networks of runs that died without cleaning up (killed with
   * {@code kill -9}, or the machine lost power): those labelled with an owner of this boot and
   * pid namespace whose process is gone. Other owners' things are left alone, also those of a
   * live run in this JVM.
   *
   * @return what was removed, for the log
   */
  static List<String> removeStale(DockerClient docker) {
    List<String> removed = new ArrayList<>();
    List<Container> containers = docker.listContainersCmd().withShowAll(true)
        .withLabelFilter(List.of(OWNER_LABEL)).exec();
    for (Container c : containers) {
      if (isStale(c.getLabels().get(OWNER_LABEL))) {
        try {
          docker.removeContainerCmd(c.getId()).withForce(true).withRemoveVolumes(true).exec();
          removed.add("container " + String.join(",", c.getNames()));
        } catch (NotFoundException gone) {
          // removed meanwhile by another run's clean-up
        }
      }
    }
    List<Network> networks = docker.listNetworksCmd()
        .withFilter("label", List.of(OWNER_LABEL)).exec();
    for (Network n : networks) {
      if (isStale(n.getLabels().get(OWNER_LABEL))) {
        try {
          docker.removeNetworkCmd(n.getId()).exec();
          removed.add("network " + n.getName());
        } catch (NotFoundException gone) {
          // removed meanwhile
        }
      }
    }
    return removed;
  }

  static boolean isStale(String owner) {
    if (owner == null) {
      return false;
    }
    String[] parts = owner.split("/");
    String[] ours = OWNER.split("/");
    if (parts.length != 3 || !parts[0].equals(ours[0]) || !parts[1].equals(ours[1])) {
      return false; // another machine, boot or pid namespace: its pids mean nothing here
    }
    try {
      long pid = Long.parseLong(parts[2]);
      return ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * The first {@code 10.78.K.0/24} (from {@code first} on) that neither a Docker network nor a
   * route of this machine uses, so two runs (or a run and the netns runtime's 10.77) never share
   * addresses.
   */
  static int freeSubnet(DockerClient docker, int first) {
    Set<String> used = new TreeSet<>();
    for (Network n : docker.listNetworksCmd().exec()) {
      if (n.getIpam() != null && n.getIpam().getConfig() != null) {
        for (Network.Ipam.Config c : n.getIpam().getConfig()) {
          if (c.getSubnet() != null) {
            used.add(c.getSubnet());
          }
        }
      }
    }
    String routes = routes();
    for (int j = 0; j < 254; j++) {
      int k = (first + j) % 254 + 1;
      String prefix = "10.78." + k + ".";
      boolean taken = used.stream().anyMatch(s -> s.startsWith(prefix))
          || routes.contains(prefix);
      if (!taken) {
        return k;
      }
    }
    throw new SetupException("every 10.78.K.0/24 is in use by a Docker network or a route: "
        + "remove stale networks (docker network ls)");
  }

  /** The destinations of this machine's IPv4 routes, dotted, from /proc/net/route. */
  private static String routes() {
    StringBuilder out = new StringBuilder();
    try {
      for (String line : Files.readAllLines(Path.of("/proc/net/route"))) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 2 && f[1].matches("[0-9A-Fa-f]{8}")) {
          long d = Long.parseLong(f[1], 16); // little-endian
          out.append(d & 0xff).append('.').append(d >> 8 & 0xff).append('.')
              .append(d >> 16 & 0xff).append('.').append(d >> 24 & 0xff).append('\n');
        }
      }
    } catch (IOException | RuntimeException e) {
      // no procfs: the engine still refuses a subnet that overlaps one of its networks
    }
    return out.toString();
  }

  /** The innermost message, which names what actually failed (a refused connection, a 404). */
  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return m.strip();
  }

  /**
   * True when {@code e} says the engine itself is gone (no connection), as opposed to the engine
   * answering with an error about one container.
   */
  static boolean engineGone(RuntimeException e) {
    return !(e instanceof DockerException);
  }

  private static String bootId() {
    try {
      return Files.readString(Path.of("/proc/sys/kernel/random/boot_id"),
          StandardCharsets.US_ASCII).strip();
    } catch (IOException | RuntimeException e) {
      return "unknown-boot";
    }
  }

  private static String pidNamespace() {
    try {
      // "pid:[4026531836]": the inode number names the namespace
      return Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString()
          .replaceAll("[^0-9]", "");
    } catch (IOException | RuntimeException e) {
      return "unknown-pidns";
    }
  }

  /** The labels of everything one run makes. */
  static Map<String, String> labels(String run) {
    return Map.of(OWNER_LABEL, OWNER, RUN_LABEL, run);
  }
}
