package io.partkit.verification.checker;

import io.partkit.verification.history.History;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;

/**
 * What the register differential tests share: a register or cas-register with an initial state
 * and a reading of nil, and the brute force's verdict under the same reading (it replays the
 * strict model and treats a nil read as a wildcard itself when the reading asks for it).
 *
 * @param cas a cas-register rather than a register
 * @param init the initial state (null: nil)
 * @param nilReads the reading of an :ok read of nil under test
 */
record RegisterSetup(boolean cas, Object init, NilReads nilReads) {

  /** From a test's columns: {@code initText} is {@code nil} or a number. */
  static RegisterSetup of(boolean cas, String initText, NilReads nilReads) {
    return new RegisterSetup(cas, initText.equals("nil") ? null : Long.parseLong(initText),
        nilReads);
  }

  /** The model under test. */
  Model<?> model() {
    return cas ? Models.casRegister(init, nilReads) : Models.register(init, nilReads);
  }

  /** Whether an :ok read of nil constrains nothing (Knossos' reading). */
  boolean wildcard() {
    return nilReads == NilReads.KNOSSOS;
  }

  /** The brute force's verdict on {@code h}, the reference every test compares with. */
  boolean linearizable(History h) {
    Model<?> strict =
        cas ? Models.casRegister(init, NilReads.STRICT) : Models.register(init, NilReads.STRICT);
    return BruteForce.linearizable(strict, h, wildcard());
  }
}
