package io.sediment.marker;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.fs.FileIO;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Markers of a finished window go by output name; no snapshot is read. */
class OutputMarkersTest {

  @TempDir java.nio.file.Path dir;

  /** Writes an output (when {@code exists}) and its marker; returns the marker's path. */
  private String marked(String outputName, boolean exists) throws Exception {
    java.nio.file.Path output = dir.resolve("bucket-0").resolve(outputName);
    Files.createDirectories(output.getParent());
    if (exists) {
      Files.write(output, new byte[] {1});
    }
    java.nio.file.Path marker = dir.resolve(".markers/job/marker-" + outputName);
    Files.createDirectories(marker.getParent());
    Files.writeString(marker, output.toUri().toString(), StandardCharsets.UTF_8);
    return marker.toUri().toString();
  }

  @Test
  void markersOfCommittedOutputsAreDeletedByNameAndOthersOnlyWhenTheirOutputIsGone()
      throws Exception {
    // No table, no snapshot: what was committed is known from the window's messages only.
    String committed = marked("data-committed.parquet", true);
    String committedDv = marked("dv-committed", true);
    String deleted = marked("data-aborted.parquet", false);
    String leftOver = marked("data-undeletable.parquet", true);
    FileIO io = FileIO.of(new Path(dir.toUri()));

    OutputMarkers.deleteMarkersOfFinishedOutputs(
        io,
        List.of(committed, committedDv, deleted, leftOver),
        Set.of("data-committed.parquet", "dv-committed"));

    assertThat(dir.resolve(".markers/job"))
        .isDirectoryContaining(
            p -> p.getFileName().toString().equals("marker-data-undeletable.parquet"))
        .isDirectoryNotContaining(
            p -> !p.getFileName().toString().equals("marker-data-undeletable.parquet"));
    // Outputs are never deleted here: committed ones are the table's, the left-over one waits for
    // the cleanup at the next start.
    assertThat(dir.resolve("bucket-0/data-committed.parquet")).exists();
    assertThat(dir.resolve("bucket-0/data-undeletable.parquet")).exists();
  }
}
