package io.partkit.strategy.tokenring;

import io.partkit.spi.MembershipView;
import java.util.Optional;

/** Chooses every member's tokens. Implementations are immutable and thread-safe. */
interface TokenChooser {

  /** The option value that selects this chooser ({@code tokens=...}). */
  String name();

  /**
   * The ring for {@code view}, in which a member of weight {@code w} owns {@code w * vnodes}
   * distinct tokens.
   *
   * @param previous the ring in force, if any; it may name members that have left (their tokens
   *     go) and lack members that joined. A chooser may build on it or ignore it.
   */
  Ring choose(MembershipView view, int vnodes, Optional<Ring> previous);
}
