package io.sediment.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.manifest.SnapshotManager;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.ChildJvm;
import io.sediment.testutil.LockDatabases;
import io.sediment.testutil.S3ProxyExtension;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Committers in separate JVMs ({@link S3Committer}) racing on one table on S3 through the commit
 * lock (the SQLite file they share, and PostgreSQL when {@code SEDIMENT_TEST_POSTGRES_URL} is set):
 * every row whose commit returned is read back exactly once, every snapshot is readable, and no
 * file is left that no snapshot references.
 */
class S3ProcessRaceTest {

  private static final int COMMITTERS = 3;
  private static final int COMMITS_EACH = 12;

  @TempDir static java.nio.file.Path dir;

  @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension("lake");

  static Stream<String> lockDatabases() {
    return LockDatabases.urls(dir).stream();
  }

  @ParameterizedTest
  @MethodSource("lockDatabases")
  void committersInSeparateProcessesLoseNoCommit(String lockUrl) throws Exception {
    String warehouse = "s3://lake/race-" + lockKind(lockUrl);
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse);
    catalog.createDatabase("db", true);
    Map<String, String> options = new LinkedHashMap<>();
    options.put("lock.enabled", "true");
    options.put("lock.jdbc.url", lockUrl);
    Table table =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .options(options)
                .build());

    List<Process> processes = new ArrayList<>();
    for (int c = 0; c < COMMITTERS; c++) {
      processes.add(
          new ProcessBuilder(
                  ChildJvm.java(
                      "-Xmx256m",
                      "-cp",
                      System.getProperty("java.class.path"),
                      S3Committer.class.getName(),
                      S3.server().endpoint(),
                      warehouse,
                      Long.toString(c * 1000L),
                      Integer.toString(COMMITS_EACH)))
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("committer-" + lockKind(lockUrl) + c + ".log").toFile())
              .start());
    }
    List<Long> committed = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    List<String> output = new ArrayList<>();
    try {
      collect(processes, lockUrl, committed, failed, output);
    } finally {
      processes.forEach(Process::destroyForcibly);
    }

    List<Long> ids = new ArrayList<>();
    for (RowData r : TestTables.readAll(table)) {
      ids.add(r.getLong(0));
    }
    // First what users lose: a commit that returned and whose row is gone.
    assertThat(ids).as("rows of the commits that returned").containsAll(committed);
    assertThat(ids).doesNotHaveDuplicates().hasSameSizeAs(committed);
    assertThat(failed).as("failed commits").isEmpty();
    assertThat(committed).hasSize(COMMITTERS * COMMITS_EACH);
    SnapshotManager snapshots = table.snapshotManager();
    assertThat(snapshots.listIds()).hasSize(COMMITTERS * COMMITS_EACH);
    for (long id : snapshots.listIds()) {
      assertThat(snapshots.snapshot(id).id()).isEqualTo(id);
    }
    assertThat(new RemoveOrphanFiles(table).olderThan(Long.MAX_VALUE).dryRun(true).execute())
        .as("files no snapshot references")
        .isEmpty();
  }

  /** Waits for each committer and collects what it printed. */
  private static void collect(
      List<Process> processes,
      String lockUrl,
      List<Long> committed,
      List<String> failed,
      List<String> output)
      throws Exception {
    for (int c = 0; c < COMMITTERS; c++) {
      Process p = processes.get(c);
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("committer exited").isTrue();
      for (String line :
          Files.readAllLines(dir.resolve("committer-" + lockKind(lockUrl) + c + ".log"))) {
        output.add(line);
        if (line.startsWith("COMMITTED ")) {
          committed.add(Long.parseLong(line.substring("COMMITTED ".length())));
        } else if (line.startsWith("FAILED ")) {
          failed.add(line);
        }
      }
      assertThat(p.exitValue()).as("committer exit code; output: %s", output).isZero();
    }
  }

  private static String lockKind(String lockUrl) {
    return lockUrl.startsWith("jdbc:sqlite") ? "sqlite" : "pg";
  }
}
