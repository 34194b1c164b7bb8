package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.filesPerPartition;
import static io.sediment.flink.FlinkTestSupport.rows;
import static io.sediment.flink.FlinkTestSupport.snapshots;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A savepoint of the dedicated compaction job taken by an earlier version (checked in under {@code
 * src/test/resources/savepoints/dedicated-compaction-v1/}) restores into this version's job, which
 * goes on compacting with the restored commit user: a change that breaks the restore of the job's
 * state (operator uids, state names, serialized classes) fails here.
 *
 * <p>Regenerate the fixture (only when a break is intended and documented) with {@code mvn -o test
 * -Dtest=SavepointFixtureTest -DregenerateSavepointFixture=true}, which runs {@link
 * #takeFixtureSavepoint()} and rewrites the directory.
 */
class SavepointFixtureTest {

  static final String FIXTURE = "savepoints/dedicated-compaction-v1";
  private static final Path FIXTURE_SOURCE = Path.of("src/test/resources").resolve(FIXTURE);

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  private JobClient client;

  @AfterEach
  void cancel() throws Exception {
    if (client != null) {
      StreamingJobs.cancelAndWait(client);
    }
  }

  @Test
  void theCheckedInSavepointRestoresAndTheJobGoesOnCompacting() throws Exception {
    Properties fixture = new Properties();
    try (InputStream in = Files.newInputStream(fixtureDir().resolve("fixture.properties"))) {
      fixture.load(in);
    }
    String restoredCommitUser = fixture.getProperty("commitUser");
    Path savepoint = dir.resolve("savepoint");
    copyDirectory(fixtureDir(), savepoint);
    FileSystemCatalog catalog = TestTables.catalog(dir.resolve("wh"));
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    List<String> written =
        TestTables.toStrings(table.rowType(), FlinkTestSupport.fill(table, 0, 4, 10, "a", "b"));

    CompactJob job = FlinkTestSupport.dedicatedJob(dir.resolve("wh"));
    client = job.submitStreaming(restoringEnv(savepoint));
    await("the restored job compacts the new files")
        .atMost(Duration.ofSeconds(60))
        .until(() -> filesPerPartition(table).values().stream().allMatch(n -> n == 1));
    StreamingJobs.cancelAndWait(client);
    client = null;

    Table t = catalog.getTable("db.t");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(written);
    List<Snapshot> compacts =
        snapshots(t).stream().filter(s -> s.commitKind() == CommitKind.COMPACT).toList();
    assertThat(compacts)
        .isNotEmpty()
        .allSatisfy(
            s ->
                assertThat(s.commitUser())
                    .as("the commit user restored from the savepoint, not the new job's")
                    .isEqualTo(restoredCommitUser)
                    .isNotEqualTo(job.commitUser()));
    assertThat(compacts.stream().map(Snapshot::commitIdentifier)).doesNotHaveDuplicates();
    assertThat(FlinkTestSupport.orphanDataFiles(t, dir.resolve("wh/db.db/t"))).isEmpty();
  }

  /** Writes the fixture: the dedicated job of {@code db.t} after one compaction, stopped. */
  @Test
  @EnabledIfSystemProperty(named = "regenerateSavepointFixture", matches = "true")
  void takeFixtureSavepoint() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir.resolve("wh"));
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    FlinkTestSupport.fill(table, 0, 4, 10, "a", "b");
    CompactJob job = FlinkTestSupport.dedicatedJob(dir.resolve("wh"));
    client = job.submitStreaming(FlinkTestSupport.restartingStreamEnv());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> filesPerPartition(table).values().stream().allMatch(n -> n == 1));
    String savepoint =
        client
            .stopWithSavepoint(
                false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
            .get();
    client = null;

    deleteDirectory(FIXTURE_SOURCE);
    copyDirectory(Path.of(java.net.URI.create(savepoint)), FIXTURE_SOURCE);
    Properties fixture = new Properties();
    fixture.setProperty("commitUser", job.commitUser());
    try (OutputStream out = Files.newOutputStream(FIXTURE_SOURCE.resolve("fixture.properties"))) {
      fixture.store(out, "Savepoint of the dedicated compaction job (SavepointFixtureTest)");
    }
  }

  private static StreamExecutionEnvironment restoringEnv(Path savepoint) {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint.toUri().toString());
    conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, false);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.enableCheckpointing(300);
    return env;
  }

  private static Path fixtureDir() throws URISyntaxException {
    URL url = SavepointFixtureTest.class.getResource("/" + FIXTURE + "/fixture.properties");
    assertThat(url).as("fixture %s on the test class path", FIXTURE).isNotNull();
    return Path.of(url.toURI()).getParent();
  }

  private static void copyDirectory(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : files.toList()) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target);
        }
      }
    }
  }

  private static void deleteDirectory(Path d) throws IOException {
    if (!Files.exists(d)) {
      return;
    }
    try (Stream<Path> files = Files.walk(d)) {
      for (Path f : files.sorted((a, b) -> b.compareTo(a)).toList()) {
        Files.delete(f);
      }
    }
  }
}
