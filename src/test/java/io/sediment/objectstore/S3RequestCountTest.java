package io.sediment.objectstore;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.bench.BenchResult;
import io.sediment.bench.BenchRunner;
import io.sediment.bench.Scale;
import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.fs.ObjectStoreRequests;
import io.sediment.fs.ObjectStoreRequests.Counts;
import io.sediment.manifest.ManifestCache;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.S3ProxyExtension;
import io.sediment.testutil.TestTables;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The requests Sediment sends to S3 (S3Proxy, through Flink's S3 file system) for a commit, counted
 * by {@link ObjectStoreRequests}: the figures docs/operations.md ("Object stores") promises.
 */
class S3RequestCountTest {

  @TempDir static java.nio.file.Path dir;

  @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension("lake");

  /**
   * {@code sediment bench --dir s3://...} reports requests: W3's plan and W1's compaction read
   * manifests and data files without listing a directory.
   */
  @Test
  void benchReportsTheRequestsOfW3sPlanAndW1sCompaction() throws Exception {
    Map<String, String> lock =
        Map.of("lock.enabled", "true", "lock.jdbc.url", "jdbc:sqlite:" + dir.resolve("b.db"));
    BenchResult w3 =
        BenchRunner.run("W3", "s3://lake/bench-w3", "in-process", null, Scale.divided(100), lock);
    System.err.println("W3 " + w3.toJson(Map.of()));
    assertThat(w3.verified()).as(w3.verification()).isTrue();
    assertThat(w3.details().get("planRequestsList")).isEqualTo(0L);
    assertThat((Long) w3.details().get("planRequestsGet")).isPositive();
    // A plan from manifest files (the bench empties the manifest cache first): manifests are
    // opened at the size their list records, with no HEAD for their length (14ded5d sent 6 HEADs,
    // though part of its manifests came from the cache).
    assertThat(w3.details().get("planRequestsHead")).isEqualTo(4L);

    BenchResult w1 =
        BenchRunner.run(
            "W1",
            "s3://lake/bench-w1",
            "in-process",
            (table, options, order) -> table.newCompactBuilder().withOptions(options).execute(),
            Scale.divided(100),
            lock);
    System.err.println("W1 " + w1.toJson(Map.of()));
    assertThat(w1.verified()).as(w1.verification()).isTrue();
    assertThat(w1.details().get("compactionRequestsList")).isEqualTo(0L);
    assertThat((Long) w1.details().get("compactionRequestsPut")).isPositive();
    assertThat(w1.toJson(Map.of())).contains("\"generationRequestsHead\":");
  }

  @Test
  void aCommitListsNothingAndReadsNothingItDoesNotNeed() throws Exception {
    Table table = lockedTable("s3://lake/counts", "l.db", Map.of());
    TestTables.writeBatch(table, List.of(row(1L, "a")));
    TestTables.writeBatch(table, List.of(row(2L, "b")));

    // The commit of snapshot 3 on top of 2, in a process that has not read snapshot 2's lists
    // before: LATEST read (GET), snapshot 2 probed (HEAD) and read (GET), snapshot 3 probed (HEAD);
    // the two manifest lists of snapshot 2 read (each a HEAD for its length, a GET of the footer,
    // one ranged GET of its row group); one manifest and two manifest lists written (PUT); under
    // the lock: the claim left by the last holder read (in the lock's database), snapshot 3 probed
    // again (HEAD), snapshot 2 checked (HEAD: the base is still there, so id 3 was never taken and
    // expired meanwhile), every file the snapshot adds checked (a HEAD each: the data file, the
    // manifest, the two lists), the snapshot staged (PUT), claimed (database), snapshot 3 probed
    // once more
    // (HEAD: a committer under another lock) and moved into place (COPY, DELETE); LATEST replaced
    // (PUT); the expiry reads EXPIRING (missing: GET) and EARLIEST (GET) and, with nothing to
    // expire, lists nothing.
    // Before issue 8: LIST=3 HEAD=8 GET=21 PUT=5 COPY=1 DELETE=2.
    ManifestCache.clear(); // as a process that did not write snapshot 2
    assertThat(commitOneRow(table, 3L).toString())
        .isEqualTo("LIST=0 HEAD=11 GET=8 PUT=5 COPY=1 DELETE=1");

    // The next commit, in the process that wrote snapshot 3: its lists come from the manifest
    // cache, which got them as they were written (two HEADs and four GETs fewer).
    assertThat(commitOneRow(table, 4L).toString())
        .isEqualTo("LIST=0 HEAD=9 GET=4 PUT=5 COPY=1 DELETE=1");

    assertThat(TestTables.readAll(table)).hasSize(4);
  }

  /**
   * An automatic expiry that retires one snapshot sends the same requests whatever the number of
   * snapshots it keeps: it reads the snapshots it retires and the oldest it keeps, not every kept
   * one (each of those cost GETs of its snapshot file and HEADs of its lists and manifests: at
   * d15716d LIST=6 HEAD=39 GET=14 keeping 3 snapshots, HEAD=87 GET=38 keeping 15). With stream
   * commits of one writer too, whose newest commit is the latest snapshot: the walk that looks for
   * a kept commit of the expired snapshot's user stops there (a user with no kept commit still
   * makes it read every kept snapshot, as before).
   */
  @ParameterizedTest(name = "stream commits {0}")
  @ValueSource(booleans = {false, true})
  void anExpirysRequestsDoNotGrowWithTheSnapshotsItKeeps(boolean stream) throws Exception {
    Map<Integer, String> byRetained = new java.util.TreeMap<>();
    for (int retained : new int[] {3, 7, 15}) {
      Table table =
          lockedTable(
              "s3://lake/expiry-" + stream + "-" + retained,
              "expiry-" + stream + "-" + retained + ".db",
              Map.of(
                  "snapshot.num-retained.min",
                  String.valueOf(retained),
                  "snapshot.num-retained.max",
                  String.valueOf(retained),
                  // a few manifests per snapshot, whatever the number of commits
                  "manifest.merge-min-count",
                  "3"));
      for (long id = 1; id <= retained + 2; id++) {
        if (stream) {
          commitOneRow(table, id, true);
        } else {
          TestTables.writeBatch(table, List.of(row(id, "a")));
        }
      }
      // the commit of snapshot retained + 3 expires snapshot 3, keeping 4 .. retained + 3
      byRetained.put(retained, commitOneRow(table, retained + 3L, stream).toString());
      assertThat(table.store().snapshotManager().earliestId()).hasValue(4L);
      assertThat(TestTables.readAll(table)).hasSize(retained + 3);
    }
    assertThat(byRetained.values()).as(byRetained.toString()).containsOnly(byRetained.get(3));
    if (stream) {
      return;
    }
    // the commit (HEAD=9 GET=4, as above) and an expiry that reads the retired snapshot, the oldest
    // kept and the latest (a list or manifest they share checked once), writes and deletes its
    // record, and deletes the snapshot, its data file, the manifests merged away and its lists; its
    // planning's listing of the snapshot directory serves the retiring step too (LIST=4 before);
    // one LIST of tag/ once the record exists (LIST=3 before tags)
    assertThat(byRetained.get(3)).isEqualTo("LIST=4 HEAD=25 GET=8 PUT=8 COPY=2 DELETE=9");
  }

  /**
   * Table db.t (id, v) in a new warehouse, with the commit lock in SQLite file {@code lockFile} and
   * the options {@code more}.
   */
  private static Table lockedTable(String warehouse, String lockFile, Map<String, String> more) {
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse);
    catalog.createDatabase("db", true);
    Map<String, String> options = new java.util.HashMap<>(more);
    options.put("lock.enabled", "true");
    options.put("lock.jdbc.url", "jdbc:sqlite:" + dir.resolve(lockFile));
    Schema schema =
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("v", DataTypes.STRING())
            .options(options)
            .build();
    return TestTables.create(catalog, "t", schema);
  }

  /** The requests of the commit of one row, written before it is measured. */
  private static Counts commitOneRow(Table table, long id) throws Exception {
    return commitOneRow(table, id, false);
  }

  /**
   * The same as a batch commit, or as a stream commit of writer {@code w} with identifier {@code
   * id}.
   */
  private static Counts commitOneRow(Table table, long id, boolean stream) throws Exception {
    WriteBuilder wb =
        stream ? table.newStreamWriteBuilder().withCommitUser("w") : table.newBatchWriteBuilder();
    List<CommitMessage> messages;
    try (TableWrite write = wb.newWrite()) {
      write.write(row(id, "c"));
      messages = write.prepareCommit();
    }
    TableCommit commit = wb.newCommit();
    Counts before = ObjectStoreRequests.now();
    if (stream) {
      commit.commit(id, messages);
    } else {
      commit.commit(messages);
    }
    return ObjectStoreRequests.now().since(before);
  }
}
