package io.partkit.harness.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileTreesTest {

  @TempDir
  Path tmp;

  @Test
  void deletesATreeButNotWhatItsLinksPointTo() throws IOException {
    Path outside = Files.writeString(tmp.resolve("outside.txt"), "kept");
    Path root = Files.createDirectories(tmp.resolve("root/a/b"));
    Files.writeString(root.resolve("f"), "x");
    Files.writeString(tmp.resolve("root/a/g"), "y");
    Files.createSymbolicLink(tmp.resolve("root/link"), outside);
    Files.createSymbolicLink(tmp.resolve("root/dirlink"), tmp);

    FileTrees.delete(tmp.resolve("root"));

    assertThat(tmp.resolve("root")).doesNotExist();
    assertThat(outside).hasContent("kept");
  }

  @Test
  void aMissingRootIsNothingToDo() throws IOException {
    FileTrees.delete(tmp.resolve("never-made"));
    assertThat(tmp).isEmptyDirectory();
  }

  @Test
  void aSingleFileIsDeletedToo() throws IOException {
    Path f = Files.writeString(tmp.resolve("one"), "x");
    FileTrees.delete(f);
    assertThat(f).doesNotExist();
  }
}
