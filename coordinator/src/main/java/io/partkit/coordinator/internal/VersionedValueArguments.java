package io.partkit.coordinator.internal;

import static java.util.Objects.requireNonNull;

import io.partkit.coordinator.VersionedValues;

/**
 * The argument checks of {@link VersionedValues}, one copy for every store, so that a bad name or
 * an oversized value gets the same message from each and is refused before anything is sent.
 */
public final class VersionedValueArguments {

  private static final int MAX_NAME_LENGTH = 128;

  private VersionedValueArguments() {}

  /**
   * @throws IllegalArgumentException quoting the name and saying what names may be
   */
  public static String checkName(String name) {
    requireNonNull(name, "name");
    boolean valid = !name.isEmpty() && name.length() <= MAX_NAME_LENGTH;
    for (int i = 0; valid && i < name.length(); i++) {
      char c = name.charAt(i);
      valid = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
          || c == '.' || c == '_' || c == '-';
    }
    if (!valid) {
      String shown = name.length() <= MAX_NAME_LENGTH + 8 ? "'" + name + "'"
          : "'" + name.substring(0, MAX_NAME_LENGTH) + "...' (" + name.length() + " characters)";
      throw new IllegalArgumentException("bad value name " + shown + ": a name is 1 to "
          + MAX_NAME_LENGTH + " characters of [A-Za-z0-9._-]");
    }
    return name;
  }

  /**
   * Checks all arguments of {@link VersionedValues#compareAndSet}.
   *
   * @throws IllegalArgumentException for a bad name, a value over
   *     {@link VersionedValues#MAX_VALUE_BYTES} or a negative expected version
   */
  public static void checkCompareAndSet(String name, long expectedVersion, byte[] value) {
    checkName(name);
    requireNonNull(value, "value");
    if (value.length > VersionedValues.MAX_VALUE_BYTES) {
      throw new IllegalArgumentException("value '" + name + "' is " + value.length
          + " bytes, over the limit of " + VersionedValues.MAX_VALUE_BYTES + " bytes (1 MiB)");
    }
    if (expectedVersion < VersionedValues.ABSENT) {
      throw new IllegalArgumentException("expected version of value '" + name + "' must be "
          + "ABSENT (0) or a version the store returned (positive): " + expectedVersion);
    }
  }
}
