package io.partkit.strategy.tokenring;

import java.util.Arrays;

/**
 * An indexed binary max-heap of members keyed by load per unit of weight, ties to the lower
 * member index (= node id order). The order is total, so the top is the same whatever the
 * history of operations: the allocator stays deterministic. O(log n) per update, no boxing.
 */
final class LoadHeap {

  private final double[] key;
  private final int[] heap;
  private final int[] position;
  private int size;

  LoadHeap(int capacity) {
    this.key = new double[capacity];
    this.heap = new int[capacity];
    this.position = new int[capacity];
    Arrays.fill(position, -1);
  }

  boolean isEmpty() {
    return size == 0;
  }

  boolean contains(int member) {
    return position[member] >= 0;
  }

  /** The most loaded member; the heap must not be empty. */
  int top() {
    return heap[0];
  }

  /** Inserts {@code member} or updates its key. */
  void set(int member, double newKey) {
    if (position[member] < 0) {
      key[member] = newKey;
      heap[size] = member;
      position[member] = size;
      size++;
      up(size - 1);
    } else {
      key[member] = newKey;
      up(position[member]);
      down(position[member]);
    }
  }

  /** Removes {@code member} if present. */
  void remove(int member) {
    int at = position[member];
    if (at < 0) {
      return;
    }
    size--;
    position[member] = -1;
    if (at != size) {
      int last = heap[size];
      heap[at] = last;
      position[last] = at;
      up(at);
      down(position[last]);
    }
  }

  private boolean above(int a, int b) {
    return key[a] > key[b] || (key[a] == key[b] && a < b);
  }

  private void up(int i) {
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!above(heap[i], heap[parent])) {
        return;
      }
      swap(i, parent);
      i = parent;
    }
  }

  private void down(int i) {
    while (true) {
      int l = 2 * i + 1;
      if (l >= size) {
        return;
      }
      int best = l + 1 < size && above(heap[l + 1], heap[l]) ? l + 1 : l;
      if (!above(heap[best], heap[i])) {
        return;
      }
      swap(i, best);
      i = best;
    }
  }

  private void swap(int i, int j) {
    int a = heap[i];
    heap[i] = heap[j];
    heap[j] = a;
    position[heap[i]] = i;
    position[heap[j]] = j;
  }
}
