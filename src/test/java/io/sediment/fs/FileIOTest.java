package io.sediment.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.FaultyFileSystem.Fault;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileIOTest {

  @TempDir java.nio.file.Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  private Path faulty(String name) {
    return new Path(FaultyFileSystem.uri(dir) + "/" + name);
  }

  private List<String> filesOnDisk() throws IOException {
    try (Stream<java.nio.file.Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void aListingThatRacesWithADeleteIsRetried() throws IOException {
    FileIO io = FileIO.of(faulty(""));
    io.writeNew(faulty("a"), new byte[] {1});
    io.writeNew(faulty("b"), new byte[] {2});
    FaultyFileSystem.vanishDuringListing(3);

    List<FileStatus> listed = io.list(faulty(""));

    assertThat(listed).extracting(st -> st.getPath().getName()).containsExactlyInAnyOrder("a", "b");
  }

  @Test
  void aDirectoryThatKeepsChangingFailsTheListingInTheEnd() throws IOException {
    FileIO io = FileIO.of(faulty(""));
    io.writeNew(faulty("a"), new byte[] {1});
    FaultyFileSystem.vanishDuringListing(Integer.MAX_VALUE);

    assertThatThrownBy(() -> io.list(faulty(""))).isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void aWriteThatFailsMidwayLeavesNoPartialFile() throws IOException {
    FileIO io = FileIO.of(faulty(""));
    byte[] content = "0123456789".repeat(100).getBytes(StandardCharsets.UTF_8);
    FaultyFileSystem.injectAt(dir, 1, Fault.diskFullAfter(10));

    assertThatThrownBy(() -> io.writeNew(faulty("manifest-1"), content))
        .hasMessageContaining(FaultyFileSystem.DISK_FULL_MESSAGE);

    assertThat(filesOnDisk()).isEmpty();
  }

  @Test
  void aFailedExclusiveCreateOrHintUpdateLeavesNoTemporaryFile() throws IOException {
    FileIO io = FileIO.of(faulty(""));
    byte[] content = "{\"id\":1}".repeat(50).getBytes(StandardCharsets.UTF_8);
    FaultyFileSystem.injectAt(dir, 1, Fault.writeFailsAfter(5));
    assertThatThrownBy(() -> io.tryCreateExclusive(faulty("snapshot-1"), content))
        .isInstanceOf(IOException.class);
    assertThat(filesOnDisk()).isEmpty();

    FaultyFileSystem.injectAt(dir, 1, Fault.writeFailsAfter(1));
    assertThatThrownBy(() -> io.overwriteHint(faulty("LATEST"), "12345"))
        .isInstanceOf(IOException.class);
    assertThat(filesOnDisk()).isEmpty();
  }
}
