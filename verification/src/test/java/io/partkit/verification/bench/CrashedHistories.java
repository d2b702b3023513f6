package io.partkit.verification.bench;

import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.Histories;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded single-key cas-register histories with crashed writes and cas, shaped like Jepsen's
 * register workloads: {@code concurrency} process slots invoke reads, writes and cas
 * (one third each) over the values 0..{@code values}-1; each :ok operation takes effect at a
 * random moment between its invocation and its completion. A write or a cas crashes with
 * probability {@code crashRate}: its process completes it :info at once and a fresh process takes
 * the slot; the crashed operation takes effect with probability one half, at a random moment
 * within the next {@code 4 * concurrency + 8} simulation steps (so while later operations run, as
 * a request still in flight after its client gave up would), or never. A cas takes effect only if
 * the register holds its old value then (else :fail, or for a crashed one no effect). Valid by
 * construction; {@link CasHistories#corrupt} makes one late read or cas impossible.
 *
 * <p>{@link #main} writes the histories used in docs/checker-scale.md, "Crashed operations", as
 * EDN (one map per line, for {@code partkit check}) and as the JSON corpus of
 * {@code tools/porcupine-compare} ({@link ExportHistories}):
 * {@code java -Xmx3g -cp ... io.partkit.verification.bench.CrashedHistories OUT_DIR [name...]}.
 */
public final class CrashedHistories {
  private CrashedHistories() {}

  /** One named case: its generator's parameters and whether it is corrupted (invalid). */
  record Spec(String name, long seed, int ops, int concurrency, double crashRate, boolean invalid) {
    History history() {
      History h = generate(seed, ops, concurrency, crashRate, 5);
      return invalid ? CasHistories.corrupt(h, seed) : h;
    }
  }

  /** The cases of the issue: 1M operations at concurrency 1 with 0.1% crashed writes and cas, and
   * 10k-100k at concurrency 5 and 10 with 1%; invalid twins of a few. */
  static final List<Spec> SPECS =
      List.of(
          new Spec("crash-c1-n1m", 1, 1_000_000, 1, 0.001, false),
          new Spec("crash-c1-n1m-bad", 1, 1_000_000, 1, 0.001, true),
          new Spec("crash-c5-n10k", 2, 10_000, 5, 0.01, false),
          new Spec("crash-c10-n10k", 3, 10_000, 10, 0.01, false),
          new Spec("crash-c5-n100k", 4, 100_000, 5, 0.01, false),
          new Spec("crash-c10-n100k", 5, 100_000, 10, 0.01, false),
          new Spec("crash-c5-n10k-bad", 2, 10_000, 5, 0.01, true),
          new Spec("crash-c10-n100k-bad", 5, 100_000, 10, 0.01, true));

  /** A history of {@code ops} invocations (see the class comment). */
  public static History generate(
      long seed, int ops, int concurrency, double crashRate, int values) {
    Random rnd = new Random(seed);
    List<Op> out = new ArrayList<>(2 * ops + 16);
    long[] proc = new long[concurrency];
    for (int p = 0; p < concurrency; p++) {
      proc[p] = p;
    }
    long nextProc = concurrency;
    String[] f = new String[concurrency];
    Object[] arg = new Object[concurrency];
    Object[] result = new Object[concurrency]; // null: not yet taken effect
    boolean[] open = new boolean[concurrency];
    // crashed operations still to take effect: value, steps left
    List<Object> lateArg = new ArrayList<>();
    List<Integer> lateDelay = new ArrayList<>();
    int window = 4 * concurrency + 8;
    Object register = null;
    int invoked = 0;
    int pending = 0;
    while (invoked < ops || pending > 0 || !lateArg.isEmpty()) {
      for (int i = lateArg.size() - 1; i >= 0; i--) { // late effects of crashed operations
        int left = lateDelay.get(i) - 1;
        if (left > 0) {
          lateDelay.set(i, left);
          continue;
        }
        Object a = lateArg.remove(i);
        lateDelay.remove(i);
        if (a instanceof List<?> c) {
          if (c.get(0).equals(register)) {
            register = c.get(1);
          }
        } else {
          register = a;
        }
      }
      if (invoked == ops && pending == 0) {
        continue; // only late effects left
      }
      int p = rnd.nextInt(concurrency);
      if (!open[p]) {
        if (invoked == ops) {
          continue;
        }
        int kind = rnd.nextInt(3);
        f[p] = kind == 0 ? "read" : kind == 1 ? "write" : "cas";
        arg[p] = kind == 0 ? null : kind == 1 ? (Object) (long) rnd.nextInt(values)
            : List.of((long) rnd.nextInt(values), (long) rnd.nextInt(values));
        out.add(new Op(0, proc[p], OpType.INVOKE, f[p], arg[p], null, -1, 0));
        invoked++;
        if (kind != 0 && rnd.nextDouble() < crashRate) {
          out.add(new Op(0, proc[p], OpType.INFO, f[p], arg[p], null, -1, 0));
          proc[p] = nextProc++;
          if (rnd.nextBoolean()) {
            lateArg.add(arg[p]);
            lateDelay.add(1 + rnd.nextInt(window));
          }
          continue;
        }
        open[p] = true;
        result[p] = null;
        pending++;
      } else if (result[p] == null) {
        switch (f[p]) { // the linearization point
          case "read" -> result[p] = register == null ? NIL : register;
          case "write" -> {
            register = arg[p];
            result[p] = arg[p];
          }
          default -> {
            List<?> c = (List<?>) arg[p];
            if (c.get(0).equals(register)) {
              register = c.get(1);
              result[p] = arg[p];
            } else {
              result[p] = FAILED;
            }
          }
        }
      } else {
        out.add(result[p] == FAILED
            ? new Op(0, proc[p], OpType.FAIL, f[p], arg[p], null, -1, 0)
            : new Op(0, proc[p], OpType.OK, f[p], result[p] == NIL ? null : result[p], null, -1,
                0));
        open[p] = false;
        pending--;
      }
    }
    return CasHistories.numbered(
        "crashed seed " + seed + " ops " + ops + " c" + concurrency + " crash " + crashRate, out);
  }

  private static final Object NIL = new Object();
  private static final Object FAILED = new Object();

  /** Writes each named case (all without names) as OUT_DIR/name.edn and OUT_DIR/name.json. */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "/tmp/partkit-crashed");
    Files.createDirectories(dir);
    List<String> only = List.of(args).subList(Math.min(1, args.length), args.length);
    for (Spec s : SPECS) {
      if (!only.isEmpty() && !only.contains(s.name())) {
        continue;
      }
      History h = s.history();
      long info = h.ops().stream().filter(o -> o.type() == OpType.INFO).count();
      Histories.write(h, Histories.Format.EDN, dir.resolve(s.name() + ".edn"));
      ExportHistories.write(
          dir.resolve(s.name() + ".json"),
          List.of(new ExportHistories.Named(
              s.name(), h, s.invalid() ? Verdict.INVALID : Verdict.VALID)));
      System.out.println(s.name() + ": " + h.ops().size() + " events, " + info + " :info, "
          + (s.invalid() ? "invalid" : "valid") + " by construction");
    }
  }
}
