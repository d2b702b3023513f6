package io.partkit.bench;

import java.io.PrintStream;
import java.util.Locale;

/** Receives progress while a run goes on. */
public interface Progress {

  /** Called after each step; {@code done <= total}; {@code what} names the step that finished. */
  void step(int done, int total, String what);

  /** Called once with a line worth showing (a subject that failed, a skipped size). */
  default void note(String line) {}

  /** Called when the run ends. */
  default void finished() {}

  /** No output. */
  static Progress silent() {
    return (done, total, what) -> {};
  }

  /**
   * A bar redrawn in place on a terminal, plain lines otherwise: {@code System.console() != null}
   * is the caller's usual test for {@code terminal}.
   */
  static Progress to(PrintStream out, boolean terminal) {
    return terminal ? bar(out) : lines(out);
  }

  /**
   * A plain line at each tenth of the run (at most 11 lines, plus notes), for a log or a pipe:
   * carriage-return redraws there would leave hundreds of half-lines in the file.
   */
  static Progress lines(PrintStream out) {
    return new Progress() {
      private final long start = System.nanoTime();
      private int lastTenth = -1;

      @Override
      public void step(int done, int total, String what) {
        int tenth = total == 0 ? 10 : (int) ((long) done * 10 / total);
        if (tenth != lastTenth) {
          lastTenth = tenth;
          out.printf(Locale.ROOT, "[%3d%%, %.0f s] %s%n", tenth * 10,
              (System.nanoTime() - start) / 1e9, what);
          out.flush();
        }
      }

      @Override
      public void note(String line) {
        out.println(line);
        out.flush();
      }
    };
  }

  /** A one-line progress bar, redrawn in place with carriage returns: for a terminal only. */
  static Progress bar(PrintStream out) {
    return new Progress() {
      private int lastLength;

      @Override
      public void step(int done, int total, String what) {
        int width = 30;
        int filled = total == 0 ? width : (int) ((long) done * width / total);
        String line = String.format(Locale.ROOT, "\r[%s%s] %3d%% %s",
            "#".repeat(filled), "-".repeat(width - filled),
            total == 0 ? 100 : done * 100 / total, what);
        int pad = Math.max(0, lastLength - line.length());
        out.print(line + " ".repeat(pad));
        out.flush();
        lastLength = line.length();
      }

      @Override
      public void note(String line) {
        out.print("\r" + " ".repeat(lastLength) + "\r");
        out.println(line);
        lastLength = 0;
      }

      @Override
      public void finished() {
        out.println();
      }
    };
  }
}
