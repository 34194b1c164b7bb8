package io.sediment.compact;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.ManifestEntry;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A merge of a deletion-vector bucket reads more than its inputs: it looks its keys up in the
 * bucket's other levels (as does the lookup changelog producer's, when it moves level-0 files up).
 * Its planner counts those bytes, so that a continuous job's round hands its tasks over early
 * enough for the reading too (the lead, {@code CheckpointAlignment}). Generated tables: random
 * commits and compactions, then every planned task's count against the bucket's files as the
 * snapshot lists them.
 */
class LookupBytesTest {

  @TempDir Path dir;
  @TempDir Path cache;

  @ParameterizedTest(name = "{0}, seed {1}")
  @CsvSource({
    "deletion-vectors, 1",
    "deletion-vectors, 2",
    "deletion-vectors, 3",
    "lookup-changelog, 1",
    "lookup-changelog, 2",
    "neither, 1"
  })
  void aPlannedMergeCountsTheLevelsItLooksItsKeysUpIn(String kind, int seed) throws Exception {
    Schema.Builder schema =
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("id")
            .option("bucket", "2")
            .option("write-only", "true")
            .option("local-cache.dir", cache.toString());
    boolean deletionVectors = kind.equals("deletion-vectors");
    boolean lookupChangelog = kind.equals("lookup-changelog");
    if (deletionVectors) {
      schema.option("deletion-vectors.enabled", "true");
    } else if (lookupChangelog) {
      schema.option("changelog-producer", "lookup");
    }
    Table t = TestTables.create(TestTables.catalog(dir), "t", schema.build());
    Random rnd = new Random(seed);
    int tasksWithLookups = 0;
    for (int commit = 0; commit < 8; commit++) {
      WriteBuilder wb = t.newBatchWriteBuilder();
      try (TableWrite write = wb.newWrite()) {
        for (int i = 0, n = commit == 0 ? 2_000 : 10 + rnd.nextInt(200); i < n; i++) {
          write.write(row((long) rnd.nextInt(3_000), "v" + commit + "-" + i));
        }
        wb.newCommit().commit(write.prepareCommit());
      }
      CompactBuilder compact = t.newCompactBuilder().withStrategy(commit == 0 ? "full" : "minor");
      List<CompactTask> tasks = compact.plan();
      for (CompactTask task : tasks) {
        long expected = 0;
        Set<String> inputs = new HashSet<>();
        task.inputs().forEach(f -> inputs.add(f.fileName()));
        for (ManifestEntry e : t.store().newScan().plan(t.latestSnapshot().orElseThrow())) {
          DataFileMeta f = e.file();
          if (e.partition().equals(task.partition())
              && e.bucket() == task.bucket()
              && f.level() > 0
              && !inputs.contains(f.fileName())) {
            expected += f.fileSize();
          }
        }
        boolean movesLevel0 = task.inputs().stream().anyMatch(f -> f.level() == 0);
        long lookups = deletionVectors || (lookupChangelog && movesLevel0) ? expected : 0;
        assertThat(task.lookupBytes()).as("commit %d, %s", commit, task).isEqualTo(lookups);
        assertThat(task.readBytes()).isEqualTo(task.inputBytes() + lookups);
        if (lookups > 0) {
          tasksWithLookups++;
        }
      }
      if (rnd.nextInt(3) > 0) {
        compact.execute();
      }
    }
    if (deletionVectors || lookupChangelog) {
      assertThat(tasksWithLookups).as("merges under other levels were planned").isPositive();
    }
  }
}
