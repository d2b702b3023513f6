package io.partkit.verification.bench;

import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * 120 small cas-register histories shaped like Knossos' test data ({@code data/cas-register}: the
 * memstress histories have 10 processes and about 300 operations that mostly follow one another,
 * reads, writes and cas of 0..4, many cas :fail), seeded. Per history: 100 to 400 operations;
 * three in four with 10 processes and little overlap, one in four with 2 to 8 processes
 * interleaving freely; two in three with a few crashed (:info) operations. 7 of them are made
 * invalid by {@link CasHistories#corrupt} (a read or cas from 99 in the last third). The verdict
 * of each is known by construction.
 */
public final class SmallCorpus {
  private SmallCorpus() {}

  /** One history and the verdict it has by construction. */
  public record Entry(String name, History history, Verdict expected) {}

  public static final int SIZE = 120;

  public static List<Entry> generate() {
    List<Entry> out = new ArrayList<>(SIZE);
    Random rnd = new Random(0x5A11L);
    for (int i = 0; i < SIZE; i++) {
      int ops = 100 + rnd.nextInt(301);
      boolean memstress = rnd.nextInt(4) != 0;
      int concurrency = memstress ? 10 : 2 + rnd.nextInt(7);
      double overlap = memstress ? 0.1 : 1.0;
      double infoRate = rnd.nextInt(3) == 0 ? 0.0 : 0.005 * (1 + rnd.nextInt(2));
      History h = CasHistories.single(1000L + i, ops, concurrency, infoRate, overlap);
      boolean invalid = i % 17 == 5;
      if (invalid) {
        h = CasHistories.corrupt(h, i);
      }
      String name = String.format("%03d-c%d-n%d%s", i, concurrency, ops, invalid ? "-bad" : "");
      out.add(new Entry(name, h, invalid ? Verdict.INVALID : Verdict.VALID));
    }
    return out;
  }
}
