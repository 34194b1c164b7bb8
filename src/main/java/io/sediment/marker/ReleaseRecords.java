package io.sediment.marker;

import io.sediment.fs.FileIO;
import io.sediment.manifest.FileStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A compaction job's release records, {@code
 * .markers/<commit-user>/released/release-<window>-<id>}: written by the committer after a commit
 * window was committed or aborted, listing the ids of the window's tasks, so that the task source
 * (another operator, perhaps on another machine) can hand their files out again ({@link #take}).
 */
public final class ReleaseRecords {

  private static final Logger LOG = LoggerFactory.getLogger(ReleaseRecords.class);

  private ReleaseRecords() {}

  /**
   * Records that the tasks of a window finished (committed or aborted). A failure is logged, not
   * thrown: the source then keeps the files held until the job restarts.
   */
  public static void write(
      FileStore store, String commitUser, long window, Collection<String> taskIds) {
    if (taskIds.isEmpty()) {
      return;
    }
    Path file =
        MarkerLayout.of(store)
            .release(commitUser, window, UUID.randomUUID().toString().substring(0, 8));
    try {
      // Published whole: the source may list and take the record while it is written, and a
      // record read half written (empty) and then deleted would lose its tasks' release.
      store
          .fileIO()
          .replaceAtomically(file, String.join("\n", taskIds).getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      LOG.warn("Could not record finished compaction tasks {}: {}", taskIds, e.toString());
    }
  }

  /** Reads and deletes the release records of a job: ids of finished tasks. */
  public static List<String> take(FileStore store, String commitUser) throws IOException {
    List<String> ids = new ArrayList<>();
    Path dir = MarkerLayout.of(store).releaseDir(commitUser);
    FileIO io = store.fileIO();
    if (!io.exists(dir)) {
      return ids;
    }
    // every record read before any is deleted: a read that fails leaves them all for the next take
    List<Path> read = new ArrayList<>();
    for (FileStatus st : io.list(dir)) {
      if (st.isDir() || !st.getPath().getName().startsWith(MarkerLayout.RELEASE_PREFIX)) {
        continue;
      }
      try {
        for (String line : io.readUtf8(st.getPath()).split("\n")) {
          if (!line.isBlank()) {
            ids.add(line.trim());
          }
        }
      } catch (FileNotFoundException e) {
        continue;
      }
      read.add(st.getPath());
    }
    read.forEach(io::deleteQuietly);
    return ids;
  }
}
