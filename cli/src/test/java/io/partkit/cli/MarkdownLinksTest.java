package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/*.md points to a file or directory that exists, and
 * every {@code #anchor} into a Markdown page names one of its headings, slugged the way GitHub
 * slugs them (lower case; letters, digits, spaces, '-' and '_' kept, everything else dropped;
 * spaces become '-'; a repeated heading gets -1, -2, ...). Links inside fenced code blocks and
 * code spans are not links; absolute URLs ({@code https:}, {@code mailto:}) are not checked.
 */
class MarkdownLinksTest {

  /** The target of an inline link or image: {@code ](target)} or {@code ](target "title")}. */
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
  private static final Pattern HEADING = Pattern.compile("^ {0,3}#{1,6}\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern CODE_SPAN = Pattern.compile("`+[^`]*`+");
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

  @Test
  void everyRelativeLinkInTheReadmeAndDocsResolves() throws IOException {
    Path root = RepositoryRoot.find();
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    Map<Path, Set<String>> anchors = new HashMap<>();
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages) {
      List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
      boolean fenced = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.stripLeading().startsWith("```")) {
          fenced = !fenced;
          continue;
        }
        if (fenced) {
          continue;
        }
        Matcher m = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
        while (m.find()) {
          String target = m.group(1);
          if (SCHEME.matcher(target).find()) {
            continue;
          }
          checked++;
          String where = root.relativize(page) + ":" + (i + 1) + ": " + target;
          int hash = target.indexOf('#');
          String file = hash < 0 ? target : target.substring(0, hash);
          String anchor = hash < 0 ? null : target.substring(hash + 1);
          Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
          if (!Files.exists(resolved)) {
            broken.add(where + " (no such file: " + root.relativize(resolved) + ")");
          } else if (anchor != null) {
            if (!resolved.toString().endsWith(".md")) {
              broken.add(where + " (an anchor into a file that is not Markdown)");
            } else if (!anchors.computeIfAbsent(resolved, MarkdownLinksTest::headingSlugs)
                .contains(anchor)) {
              broken.add(where + " (no heading with the slug '" + anchor + "' in "
                  + root.relativize(resolved) + ")");
            }
          }
        }
      }
    }
    assertThat(broken).as("broken links in README.md and docs/*.md").isEmpty();
    assertThat(checked).as("relative links checked").isGreaterThan(20);
  }

  @Test
  void headingsAreSluggedTheWayGitHubSlugsThem() {
    assertThat(slug("Strategy `fixed`: fixed partitions with a minimal-move table"))
        .isEqualTo("strategy-fixed-fixed-partitions-with-a-minimal-move-table");
    assertThat(slug("Lookup ratio at 1000 nodes (JMH)"))
        .isEqualTo("lookup-ratio-at-1000-nodes-jmh");
    assertThat(slug("key -> partition")).isEqualTo("key---partition");
    assertThat(slug("**Bold** and [a link](x.md) and snake_case"))
        .isEqualTo("bold-and-a-link-and-snake_case");
  }

  /** The anchors GitHub gives the headings of a Markdown file (outside fenced code blocks). */
  private static Set<String> headingSlugs(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
    Set<String> slugs = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean fenced = false;
    for (String line : lines) {
      if (line.stripLeading().startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (fenced || !m.matches()) {
        continue;
      }
      String base = slug(m.group(1));
      int n = seen.merge(base, 1, Integer::sum) - 1;
      slugs.add(n == 0 ? base : base + "-" + n);
    }
    return slugs;
  }

  /** GitHub's heading slug of the heading text as written in Markdown. */
  static String slug(String heading) {
    String text = heading
        .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // a link or image: its text
        .replace("`", "")
        .replace("**", "")
        .replace("*", "");
    return text.toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{N}\\p{M}\\p{Pc} -]", "")
        .replace(' ', '-');
  }
}
