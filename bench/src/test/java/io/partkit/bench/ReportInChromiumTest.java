package io.partkit.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Generates a small report and opens it in headless Chromium (Debian's {@code chromium}): the page
 * loads without console errors, its charts are drawn, and a screenshot is saved as
 * {@code target/report.png}. Missing Chromium fails under {@code CI=true} and skips elsewhere.
 */
class ReportInChromiumTest {

  static final Path TARGET = Path.of("target");
  static final Path OUT = TARGET.resolve("report-test");
  static Path index;

  @BeforeAll
  static void generate() throws IOException {
    BenchOptions options = BenchOptions.defaults()
        .withSubjects(List.of("ignite-rendezvous", "hazelcast", "cassandra-vnodes-16",
            "guava-jump", "missing=not-a-strategy"))
        .withSizes(List.of(6, 12)).withSampleKeys(20_000).withPartitions(64)
        .withLookupMillis(10).withSeed(3);
    index = Report.write(Bench.run(options, Progress.silent()), OUT);
  }

  @Test
  void theReportIsSelfContainedAndCarriesItsFiguresInEveryFormat() throws IOException {
    String html = Files.readString(index);
    assertThat(html).doesNotContain("<script").doesNotContain("http").doesNotContain("src=")
        .contains("<svg id=\"chart-join\"").contains("not-a-strategy")
        .contains("which strategy to choose when");
    String csv = Files.readString(OUT.resolve("placements.csv"));
    // header + 4 subjects x 2 sizes x 2 weights x 2 RFs
    assertThat(csv.lines()).hasSize(1 + 4 * 2 * 2 * 2);
    String json = Files.readString(OUT.resolve("results.json"));
    assertThat(json).contains("\"placements\": [").contains("\"subject\": \"guava-jump\"")
        .doesNotContain("NaN");
    assertThat(Files.readString(OUT.resolve("lookups.csv")).lines()).hasSize(1 + 4 * 2);
  }

  @Test
  void chromiumLoadsTheReportWithoutErrorsAndDrawsItsCharts() throws Exception {
    Path chromium = findChromium();
    Path screenshot = TARGET.resolve("report.png").toAbsolutePath();
    Files.deleteIfExists(screenshot);
    String url = index.toAbsolutePath().toUri().toString();
    Process dump = chromium(chromium, "dom", "--enable-logging=stderr", "--v=0", "--dump-dom", url);
    Process shot = chromium(chromium, "shot", "--screenshot=" + screenshot,
        "--window-size=1400,2000", "--hide-scrollbars", url);
    String dom = new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String log = new String(dump.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(dump.waitFor(60, TimeUnit.SECONDS)).as("chromium --dump-dom finished").isTrue();
    String shotLog = new String(shot.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(shot.waitFor(60, TimeUnit.SECONDS)).as("chromium --screenshot finished").isTrue();
    assertThat(dump.exitValue()).as(log).isZero();
    assertThat(shot.exitValue()).as(shotLog).isZero();

    assertThat(log).as("console output of the page").doesNotContain("CONSOLE")
        .doesNotContainIgnoringCase("Uncaught");
    // the browser parsed every chart: each svg element holds drawn bars (a rect with a tooltip)
    List<String> charts = new ArrayList<>();
    Matcher m = Pattern.compile("<svg id=\"([^\"]+)\"[^>]*>(.*?)</svg>", Pattern.DOTALL)
        .matcher(dom);
    while (m.find()) {
      charts.add(m.group(1));
      int bars = count(m.group(2), "</rect>");
      assertThat(bars).as("bars in " + m.group(1)).isGreaterThanOrEqualTo(2);
    }
    assertThat(charts).contains("chart-balance-equal", "chart-balance-mixed", "chart-join",
        "chart-leave", "chart-lookup", "chart-planning");

    BufferedImage png = ImageIO.read(screenshot.toFile());
    assertThat(png).as("screenshot " + screenshot).isNotNull();
    assertThat(png.getWidth()).isEqualTo(1400);
    assertThat(png.getHeight()).isEqualTo(2000);
    assertThat(colourVariance(png)).as("the screenshot is not blank").isGreaterThan(100);
  }

  private static Process chromium(Path binary, String name, String... args) throws IOException {
    Path profile = Files.createTempDirectory("partkit-chromium-" + name);
    List<String> command = new ArrayList<>(List.of(binary.toString(), "--headless",
        "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).start();
  }

  /**
   * The first of {@code chromium} (Debian) and {@code chromium-browser} (Ubuntu) on the
   * {@code PATH}: the same lookup as {@code .ci/run}'s {@code command -v}, so CI installs Chromium
   * exactly when this test would not find it.
   */
  private static Path findChromium() {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String name : List.of("chromium", "chromium-browser")) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
          return Path.of(dir, name);
        }
      }
    }
    String message = "chromium not found on the PATH (install it: apt-get install chromium)";
    if ("true".equals(System.getenv("CI"))) {
      throw new AssertionError(message + "; CI=true requires it");
    }
    assumeThat(false).as(message).isTrue();
    return null;
  }

  private static int count(String haystack, String needle) {
    int n = 0;
    for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }

  /** Variance of the pixels' grey levels over a grid: about 0 for a blank page. */
  private static double colourVariance(BufferedImage image) {
    double sum = 0;
    double sumSq = 0;
    int n = 0;
    for (int y = 0; y < image.getHeight(); y += 4) {
      for (int x = 0; x < image.getWidth(); x += 4) {
        int rgb = image.getRGB(x, y);
        double grey = ((rgb >> 16 & 0xff) + (rgb >> 8 & 0xff) + (rgb & 0xff)) / 3.0;
        sum += grey;
        sumSq += grey * grey;
        n++;
      }
    }
    double mean = sum / n;
    return sumSq / n - mean * mean;
  }
}
