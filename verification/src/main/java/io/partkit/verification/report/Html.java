package io.partkit.verification.report;

/**
 * The HTML escaping partkit's pages share (the checker's picture here, the harness's run report):
 * written once so that every page escapes the same five characters the same way.
 */
public final class Html {

  private Html() {}

  /**
   * {@code text} safe inside an element or a quoted attribute value (single or double quotes):
   * {@code & < > " '} become character references, everything else is kept.
   */
  public static String escape(String text) {
    StringBuilder b = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      String ref = switch (c) {
        case '&' -> "&amp;";
        case '<' -> "&lt;";
        case '>' -> "&gt;";
        case '"' -> "&quot;";
        case '\'' -> "&#39;";
        default -> null;
      };
      if (ref == null) {
        if (b != null) {
          b.append(c);
        }
        continue;
      }
      if (b == null) {
        b = new StringBuilder(text.length() + 16).append(text, 0, i);
      }
      b.append(ref);
    }
    return b == null ? text : b.toString();
  }
}
