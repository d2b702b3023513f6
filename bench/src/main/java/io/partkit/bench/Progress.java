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

  /** A one-line progress bar, redrawn in place with carriage returns. */
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
