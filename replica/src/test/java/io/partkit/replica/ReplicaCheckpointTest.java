package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Scan;
import io.partkit.replica.Record.Checkpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A node's checkpoint ({@link Replica#checkpoint}) against the log it stands for: seeded random
 * runs of a control and four replicas (messages reordered and lost, nodes restarting from their
 * logs, splits and moves), and for every prefix of every node's log, the replica restored from the
 * checkpoint of the replica restored from the prefix must checkpoint alike and answer what follows
 * alike.
 */
class ReplicaCheckpointTest {

  private static final int NODES = 4;
  private static final int CLIENT = 1_000_000;
  private static final Timing TIMING = Timing.DEFAULT;
  /** Whole copies in pages of two entries: prefixes end between a copy's pages too. */
  private static final int PAGE = 2;
  /** Checkpoints in pages of this many bytes: a few entries each (8 bytes and a key and value). */
  private static final long SMALL_PAGE = 64;
  /** How many of a node's next inputs both restored replicas are given and must answer alike. */
  private static final int FOLLOWING = 30;

  /** What a node was handed: a message, or (envelope null) a tick; at its log's size then. */
  private record Input(int logSize, Envelope envelope, long tick) {}

  /** One seeded run; every node's records as made durable and every input it was handed. */
  private static final class Run {
    final Random random;
    final Control control = new Control(TIMING, 2, 2, List.of(0, 1, 2, 3));
    final Replica[] nodes = new Replica[NODES];
    final List<List<Record>> logs = new ArrayList<>();
    final List<List<Input>> inputs = new ArrayList<>();
    final List<Envelope> network = new ArrayList<>();
    long now;
    long requests;

    Run(long seed) {
      random = new Random(seed);
      for (int n = 0; n < NODES; n++) {
        nodes[n] = new Replica(n, TIMING, PAGE);
        logs.add(new ArrayList<>());
        inputs.add(new ArrayList<>());
      }
    }

    void play(int steps) {
      for (int s = 0; s < steps; s++) {
        now += 10;
        control.tick(now);
        drainControl();
        for (int n = 0; n < NODES; n++) {
          inputs.get(n).add(new Input(logs.get(n).size(), null, now));
          nodes[n].tick(now);
          drain(n);
        }
        for (int k = network.size(); k > 0 && !network.isEmpty(); k--) {
          Envelope e = network.remove(random.nextInt(network.size()));
          if (random.nextInt(20) == 0 || e.to() == CLIENT) {
            continue; // lost, or a reply
          }
          if (e.to() == Control.ID) {
            control.step(e);
            drainControl();
          } else {
            deliver(e);
          }
        }
        chaos();
      }
    }

    void chaos() {
      int roll = random.nextInt(100);
      if (roll < 40) {
        Bytes key = Bytes.ofLong(random.nextInt(24));
        int partition = control.partitionOf(key);
        Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
        Bytes value = kind == Kind.GET ? null : Bytes.ofLong(random.nextInt(1000));
        Bytes expected = kind == Kind.CAS ? Bytes.ofLong(random.nextInt(1000)) : null;
        long modulus = control.configuration(partition).numbering().modulus();
        Message m = kind == Kind.CAS && random.nextBoolean()
            ? new Scan(++requests, partition, modulus, key, null, 4)
            : new Request(++requests, partition, kind, key, expected, value);
        deliver(new Envelope(CLIENT, control.primary(partition), m));
      } else if (roll < 43) {
        int n = random.nextInt(NODES);
        nodes[n] = Replica.restore(n, TIMING, logs.get(n), PAGE);
      } else if (roll < 44 && control.partitions() < 6) {
        List<Integer> partitions = control.partitionIds();
        control.split(partitions.get(random.nextInt(partitions.size())));
        drainControl();
      } else if (roll < 46) {
        List<Integer> partitions = control.partitionIds();
        control.migrate(partitions.get(random.nextInt(partitions.size())),
            random.nextInt(NODES));
        drainControl();
      }
    }

    void deliver(Envelope e) {
      inputs.get(e.to()).add(new Input(logs.get(e.to()).size(), e, 0));
      nodes[e.to()].step(e);
      drain(e.to());
    }

    void drain(int n) {
      Ready r = nodes[n].ready();
      logs.get(n).addAll(r.records());
      network.addAll(r.messages());
    }

    void drainControl() {
      network.addAll(control.ready().messages());
    }
  }

  @Test
  void aCheckpointRestoresWhatEveryPrefixOfARandomRunsLogRestores() {
    List<Checkpoint> seen = new ArrayList<>();
    java.util.Set<Class<?>> kinds = new java.util.HashSet<>();
    List<Record> gathering = new ArrayList<>();
    for (long seed = 1; seed <= 4; seed++) {
      Run run = new Run(seed);
      run.play(400);
      assertThat(run.logs.stream().mapToInt(List::size).sum()).as("seed %d", seed)
          .isGreaterThan(40);
      for (int n = 0; n < NODES; n++) {
        List<Record> log = run.logs.get(n);
        log.forEach(r -> kinds.add(r.getClass()));
        for (int i = 0; i <= log.size(); i++) {
          String at = "seed " + seed + " node " + n + " prefix " + i;
          Replica fromLog = Replica.restore(n, TIMING, log.subList(0, i), PAGE);
          List<Record> checkpoint = fromLog.checkpoint();
          Replica fromCheckpoint = Replica.restore(n, TIMING, checkpoint, PAGE);
          assertThat(fromCheckpoint.checkpoint()).as(at).isEqualTo(checkpoint);
          checkpoint.forEach(r -> {
            if (r instanceof Checkpoint c) {
              seen.add(c);
            } else {
              gathering.add(r); // the pages of a copy still arriving
            }
          });
          answersAlike(at, run.inputs.get(n), i, fromLog, fromCheckpoint);
        }
      }
    }
    // the runs reach what a checkpoint must carry beyond a plain configured copy
    assertThat(seen).anyMatch(c -> c.numbering().modulus() > 2);
    assertThat(seen).anyMatch(c -> c.role() == Role.ABSENT && c.epoch() > 0);
    assertThat(seen).anyMatch(c -> c.role() == Role.BACKUP && !c.configured());
    assertThat(seen).anyMatch(Checkpoint::deposed);
    assertThat(seen).anyMatch(c -> c.nextLevel() != c.level() + 1);
    assertThat(seen).anyMatch(c -> c.stateEpoch() > 0).anyMatch(c -> c.stateEpoch() == 0);
    assertThat(gathering).isNotEmpty().allMatch(r -> r instanceof Record.SnapshotPage);
    // and every kind of record a replica logs, levels taken by name and by a whole copy too
    assertThat(kinds).contains(Record.Configured.class, Record.LevelBegun.class,
        Record.Written.class, Record.SnapshotPage.class, Record.Rebased.class, Record.Split.class);
  }

  /**
   * What a driver compacting while running relies on: the checkpoint of a log's prefix followed
   * by the rest of the log restores what the whole log restores, for every prefix; and so does
   * folding a log batch by batch, each batch after the checkpoint of those before it.
   */
  @Test
  void aPrefixsCheckpointFollowedByTheRestOfTheLogRestoresWhatTheWholeLogRestores() {
    for (long seed = 1; seed <= 4; seed++) {
      Run run = new Run(seed);
      run.play(400);
      for (int n = 0; n < NODES; n++) {
        List<Record> log = run.logs.get(n);
        List<List<Record>> restored = new ArrayList<>();
        for (int end = 0; end <= log.size(); end++) {
          restored.add(Replica.restore(n, TIMING, log.subList(0, end), PAGE).checkpoint());
        }
        for (int i = 0; i <= log.size(); i++) {
          // the records after the prefix, one by one for a while, then all of them
          for (int end = i; end <= log.size(); end = end < i + FOLLOWING ? end + 1
              : end < log.size() ? log.size() : end + 1) {
            List<Record> compacted = new ArrayList<>(restored.get(i));
            compacted.addAll(log.subList(i, end));
            assertThat(Replica.restore(n, TIMING, compacted, PAGE).checkpoint())
                .as("seed %d node %d: the checkpoint of records [0, %d) then [%d, %d)", seed, n,
                    i, i, end)
                .isEqualTo(restored.get(end));
          }
        }
        for (int batch = 1; batch <= 7; batch += 3) {
          List<Record> folded = new ArrayList<>();
          for (int from = 0; from < log.size(); from += batch) {
            int to = Math.min(log.size(), from + batch);
            folded.addAll(log.subList(from, to));
            folded = new ArrayList<>(Replica.restore(n, TIMING, folded, PAGE).checkpoint());
            assertThat(folded).as("seed %d node %d: records [0, %d) folded %d at a time", seed,
                n, to, batch).isEqualTo(restored.get(to));
          }
        }
      }
    }
  }

  /**
   * The same with checkpoints in pages of about {@link #SMALL_PAGE} bytes (two or three entries):
   * a log compacted to a paged checkpoint of its prefix, then the rest, restores what the whole
   * log does, and so does folding that log batch by batch, batches ending among the pages.
   */
  @Test
  void aPagedCheckpointOfAPrefixThenTheRestFoldedInBatchesRestoresWhatTheWholeLogRestores() {
    int paged = 0;
    for (long seed = 1; seed <= 4; seed++) {
      Run run = new Run(seed);
      run.play(400);
      for (int n = 0; n < NODES; n++) {
        List<Record> log = run.logs.get(n);
        List<Record> whole = Replica.restore(n, TIMING, log, PAGE).checkpoint(SMALL_PAGE);
        for (int i = 0; i <= log.size(); i += 3) {
          List<Record> compacted = new ArrayList<>(
              Replica.restore(n, TIMING, log.subList(0, i), PAGE).checkpoint(SMALL_PAGE));
          paged += compacted.stream().filter(r -> r instanceof Record.CheckpointPage).count();
          compacted.addAll(log.subList(i, log.size()));
          assertThat(Replica.restore(n, TIMING, compacted, PAGE).checkpoint(SMALL_PAGE))
              .as("seed %d node %d: the paged checkpoint of records [0, %d) then the rest", seed,
                  n, i)
              .isEqualTo(whole);
          for (int batch = 2; batch <= 5; batch += 3) {
            List<Record> folded = new ArrayList<>();
            for (int from = 0; from < compacted.size(); from += batch) {
              folded.addAll(compacted.subList(from, Math.min(compacted.size(), from + batch)));
              folded = new ArrayList<>(
                  Replica.restore(n, TIMING, folded, PAGE).checkpoint(SMALL_PAGE));
            }
            assertThat(folded).as("seed %d node %d: the paged checkpoint of [0, %d) and the rest"
                + " folded %d at a time", seed, n, i, batch).isEqualTo(whole);
          }
        }
      }
    }
    assertThat(paged).as("checkpoint pages the runs' logs were compacted to").isGreaterThan(100);
  }

  /** Both replicas are handed the inputs that followed the prefix and must do the same. */
  private static void answersAlike(String at, List<Input> inputs, int prefix, Replica a,
      Replica b) {
    int from = 0;
    while (from < inputs.size() && inputs.get(from).logSize() < prefix) {
      from++;
    }
    for (int k = from; k < Math.min(inputs.size(), from + FOLLOWING); k++) {
      Input in = inputs.get(k);
      if (in.envelope() == null) {
        a.tick(in.tick());
        b.tick(in.tick());
      } else {
        a.step(in.envelope());
        b.step(in.envelope());
      }
      assertThat(b.ready()).as("%s, input %d", at, k).isEqualTo(a.ready());
    }
  }
}
