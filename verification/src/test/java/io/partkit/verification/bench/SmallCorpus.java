package io.partkit.verification.bench;

import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * 120 small cas-register histories in the style of Knossos' test data (one register, 2 to 8
 * processes, 10 to 400 operations, a few crashed), seeded; 7 of them made invalid by
 * {@link CasHistories#corrupt}. The verdict of each is known by construction.
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
      int ops = rnd.nextInt(4) == 0 ? 100 + rnd.nextInt(300) : 10 + rnd.nextInt(90); // mostly small
      int concurrency = 2 + rnd.nextInt(7);
      double infoRate = rnd.nextInt(3) == 0 ? 0.0 : 0.01 * rnd.nextInt(3);
      History h = CasHistories.single(1000L + i, ops, concurrency, infoRate);
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
