package io.partkit.cli;

import io.partkit.verification.history.History;
import io.partkit.verification.history.HistoryParseException;
import io.partkit.verification.history.Values;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;

/** Picks the model from --model and --init ("auto": {@link Models#guessName}). */
final class ModelChoice {
  private ModelChoice() {}

  /**
   * @throws IllegalArgumentException for an unknown model, a bad --init, or a history auto cannot
   *     place
   */
  static Model<?> choose(String name, String init, History history) {
    return choose(name, init, history, NilReads.KNOSSOS);
  }

  /**
   * As {@link #choose(String, String, History)}, with the reading of an :ok read of nil
   * ({@code --strict-nil}) for the register models.
   */
  static Model<?> choose(String name, String init, History history, NilReads nilReads) {
    String n;
    try {
      n = name.equals("auto") ? Models.guessName(history) : name;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + " (--model)", e);
    }
    Object initial = init == null ? defaultInit(n) : parseInit(init);
    return Models.named(n, initial, nilReads);
  }

  private static Object defaultInit(String name) {
    return name.equals("kv") ? "" : null;
  }

  /**
   * Reads {@code --init} with the history reader's own reader and bounds.
   *
   * @throws IllegalArgumentException unless {@code edn} is one EDN value, saying what was wrong
   */
  static Object parseInit(String edn) {
    try {
      return Values.fromEdn("--init", edn);
    } catch (HistoryParseException e) {
      throw new IllegalArgumentException(
          "--init must be one EDN value such as 0, nil or {:x 0 :y 0}; " + e.getMessage(), e);
    }
  }
}
