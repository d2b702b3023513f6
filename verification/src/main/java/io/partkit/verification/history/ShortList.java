package io.partkit.verification.history;

import java.util.AbstractList;
import java.util.RandomAccess;

/**
 * An unmodifiable list of one or two values, nulls allowed: what the readers of bytes make of a
 * short vector such as Jepsen's {@code [k v]}, in 24 bytes where an unmodifiable ArrayList takes
 * 72. Equal to any list of the same values (and with the same hash), as the general readers'
 * lists are: the checker and the models only ever compare them.
 */
final class ShortList extends AbstractList<Object> implements RandomAccess {
  private final Object first;
  private final Object second;
  private final boolean two;

  private ShortList(Object first, Object second, boolean two) {
    this.first = first;
    this.second = second;
    this.two = two;
  }

  static ShortList of(Object only) {
    return new ShortList(only, null, false);
  }

  static ShortList of(Object first, Object second) {
    return new ShortList(first, second, true);
  }

  @Override
  public Object get(int index) {
    if (index == 0) {
      return first;
    }
    if (index == 1 && two) {
      return second;
    }
    throw new IndexOutOfBoundsException("index " + index + " of a list of " + size());
  }

  @Override
  public int size() {
    return two ? 2 : 1;
  }
}
