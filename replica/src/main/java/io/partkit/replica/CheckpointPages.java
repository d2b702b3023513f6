package io.partkit.replica;

import io.partkit.replica.Record.Checkpoint;
import io.partkit.replica.Record.CheckpointPage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A partition's data cut into a {@link Checkpoint}'s pages, and the pages gathered back as a log
 * replays them: so that no record of a checkpoint is larger than a page (and one entry).
 */
final class CheckpointPages {

  /** What an entry counts towards a page: its key and value, with their lengths. */
  static long size(Bytes key, Bytes value) {
    return 8L + key.length() + value.length();
  }

  /** The pages before the last one, and the last one (the {@link Checkpoint}'s own data). */
  record Cut(List<CheckpointPage> pages, TreeMap<Bytes, Bytes> last) {}

  private CheckpointPages() {}

  /**
   * {@code data} in key order, in pages that stop before the entry that would take them past
   * {@code pageBytes} (a page's first entry whatever its size).
   */
  static Cut cut(int partition, NavigableMap<Bytes, Bytes> data, long pageBytes) {
    List<CheckpointPage> pages = new ArrayList<>();
    TreeMap<Bytes, Bytes> page = new TreeMap<>();
    long bytes = 0;
    for (Map.Entry<Bytes, Bytes> e : data.entrySet()) {
      long size = size(e.getKey(), e.getValue());
      if (!page.isEmpty() && bytes + size > pageBytes) {
        pages.add(new CheckpointPage(partition, pages.size(), page));
        page = new TreeMap<>();
        bytes = 0;
      }
      page.put(e.getKey(), e.getValue());
      bytes += size;
    }
    return new Cut(pages, page);
  }

  /** The pages of one checkpoint replayed so far, in order. */
  static final class Gathered {
    private final TreeMap<Bytes, Bytes> data = new TreeMap<>();
    /** As logged: a checkpoint taken meanwhile holds them, and the log's rest completes them. */
    private final List<CheckpointPage> pages = new ArrayList<>();

    /**
     * {@code page} taken after {@code gathered} (null: none): the gathering it leaves, null when
     * the page does not follow (a log that dropped the start of a checkpoint cannot complete it).
     */
    static Gathered take(Gathered gathered, CheckpointPage page) {
      Gathered g = page.page() == 0 ? new Gathered() : gathered;
      if (g == null || g.pages.size() != page.page()) {
        return null;
      }
      g.data.putAll(page.data());
      g.pages.add(page);
      return g;
    }

    /** The pages so far, as logged. */
    List<CheckpointPage> pages() {
      return pages;
    }

    /**
     * The whole data of {@code c}, whose pages {@code gathered} holds (null: none).
     *
     * @throws IllegalStateException when they are not the {@code c.pages()} it names: a log whose
     *     checkpoint misses pages was not written whole, and restoring it would lose data
     */
    static TreeMap<Bytes, Bytes> complete(Gathered gathered, Checkpoint c) {
      if (c.pages() == 0) {
        return new TreeMap<>(c.data()); // whole in one record: pages before it are of no use
      }
      int have = gathered == null ? 0 : gathered.pages.size();
      if (have != c.pages()) {
        throw new IllegalStateException("the checkpoint of partition " + c.partition()
            + " completes " + c.pages() + " pages, but " + have + " came right before it");
      }
      TreeMap<Bytes, Bytes> data = gathered.data;
      data.putAll(c.data());
      return data;
    }
  }
}
