package io.sediment.cli;

import static io.sediment.cli.SedimentCliTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sediment.catalog.FileSystemCatalog;
import io.sediment.cli.SedimentCliTest.Result;
import io.sediment.maintenance.Tags;
import io.sediment.manifest.ConsumerManager;
import io.sediment.manifest.TagManager;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code expire-snapshots}, {@code remove-orphan-files}, {@code inspect --files}, flink-conf. */
class CliCommandsTest {

  @TempDir Path dir;

  /** db.t (primary key id, one bucket): three commits of one row each. */
  private Table table() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("id")
                .option("bucket", "1")
                .build());
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(t, List.of(TestTables.row(i, "v" + i)));
    }
    return t;
  }

  /** {@code expire-snapshots} of db.t with {@code options}. */
  private Result expire(String... options) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of("expire-snapshots", "--warehouse", dir.toString(), "--table", "db.t"));
    args.addAll(List.of(options));
    return run(args.toArray(String[]::new));
  }

  /** Paimon's max_deletes: at most that many, the oldest first; bad values change nothing. */
  @Test
  void expireSnapshotsExpiresAtMostMaxDeletes() {
    Table t = table();
    for (String[] bad :
        new String[][] {
          {"--retain-max", "1", "--max-deletes", "0"}, {"--retain-max", "1", "--retain-min", "2"}
        }) {
      Result refused = expire(bad);
      assertThat(refused.code()).isEqualTo(2);
      assertThat(refused.err()).contains(bad[2]);
      assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L, 3L);
    }
    Result r = expire("--retain-max", "1", "--max-deletes", "1");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("Expired 1 snapshot of db.t");
    assertThat(t.snapshotManager().listIds()).containsExactly(2L, 3L);
  }

  @Test
  void expireSnapshotsKeepsRetainMaxAndSaysWhatItDeleted() {
    Table t = table();
    Result r = expire("--retain-max", "1");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out()).startsWith("Expired 2 snapshots of db.t; deleted ");
    assertThat(t.snapshotManager().listIds()).containsExactly(3L);
    assertThat(TestTables.readAll(t)).hasSize(3);

    Result nothing = run("expire-snapshots", "--warehouse", dir.toString(), "--table", "db.t");
    assertThat(nothing.code()).isEqualTo(2);
    assertThat(nothing.err().strip())
        .isEqualTo("Error: Give --retain-max or --older-than (or both)");

    Result badAge =
        run(
            "expire-snapshots",
            "--warehouse",
            dir.resolve("nowhere").toString(),
            "--table",
            "db.t",
            "--older-than",
            "soon");
    assertThat(badAge.code()).isEqualTo(2);
    assertThat(badAge.err().strip())
        .isEqualTo(
            "Error: --older-than: 'soon' is neither a timestamp like '2024-05-01 10:00:00' nor an"
                + " age with its unit like '1 d' (a bare number is refused)");
  }

  @Test
  void removeOrphanFilesListsThenDeletesThem() throws Exception {
    table();
    Path orphan = dir.resolve("db.db/t/bucket-0/data-orphan.parquet");
    Files.write(orphan, new byte[] {1, 2, 3});
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minusSeconds(3 * 86400)));

    Result dry =
        run("remove-orphan-files", "--warehouse", dir.toString(), "--table", "db.t", "--dry-run");
    assertThat(dry.code()).as(dry.err()).isZero();
    assertThat(dry.out())
        .isEqualTo("file:" + orphan + "\nFound 1 orphan file of db.t (dry run; nothing deleted)\n");
    assertThat(orphan).exists();

    Result r = run("remove-orphan-files", "--warehouse", dir.toString(), "--table", "db.t");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).endsWith("Deleted 1 orphan file of db.t\n");
    assertThat(orphan).doesNotExist();
  }

  @Test
  void inspectShowsSchemaOptionsSnapshotTimeTotalsAndFiles() throws Exception {
    table();
    Result text = run("inspect", "--warehouse", dir.toString(), "--table", "db.t", "--files");
    assertThat(text.code()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("  columns: id BIGINT NOT NULL, v STRING\n")
        .contains("  primary key: id\n")
        .contains("  partitioned by: (unpartitioned)\n")
        .contains("  options: bucket=1\n")
        .containsPattern("latest 3 \\(APPEND by \\S+ at \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z\\)")
        .contains("  total: 3 files, 3 rows, ")
        .contains("(unpartitioned): 3 files, 3 rows, ")
        .containsPattern("    data-\\S+\\.parquet: bucket 0, level 0, 1 row, \\d+ bytes\n");

    Result json =
        run("inspect", "--warehouse", dir.toString(), "--table", "db.t", "--files", "--json");
    JsonNode n = new ObjectMapper().readTree(json.out());
    assertThat(n.get("totals").get("files").asInt()).isEqualTo(3);
    assertThat(n.get("options").get("bucket").asText()).isEqualTo("1");
    assertThat(n.get("partitions").get(0).get("fileList")).hasSize(3);
    assertThat(n.get("consumers")).isEmpty();
  }

  @Test
  void inspectListsTheConsumersOfStreamingReads() throws Exception {
    Table t = table();
    new ConsumerManager(t.store().fileIO(), t.store().paths()).record("orders-reader", 2);
    Result text = run("inspect", "--warehouse", dir.toString(), "--table", "db.t");
    assertThat(text.out()).contains("  consumers: orders-reader (next snapshot 2)\n");
    Result json = run("inspect", "--warehouse", dir.toString(), "--table", "db.t", "--json");
    JsonNode n = new ObjectMapper().readTree(json.out());
    assertThat(n.get("consumers").get("orders-reader").get("nextSnapshot").asLong()).isEqualTo(2);
    assertThat(n.get("tags")).isEmpty();
  }

  @Test
  void inspectListsTheTags() throws Exception {
    Table t = table();
    new Tags(t).create("nightly", OptionalLong.of(2));
    new Tags(t).create("before-fix", OptionalLong.empty());
    Result text = run("inspect", "--warehouse", dir.toString(), "--table", "db.t");
    assertThat(text.out()).contains("  tags: before-fix (snapshot 3), nightly (snapshot 2)\n");
    Result json = run("inspect", "--warehouse", dir.toString(), "--table", "db.t", "--json");
    JsonNode n = new ObjectMapper().readTree(json.out());
    assertThat(n.get("tags").get("nightly").get("snapshot").asLong()).isEqualTo(2);
    assertThat(n.get("tags").get("before-fix").get("created").asText()).endsWith("Z");
  }

  /** reset-consumer and clear-consumers say what they changed; bad input is one line, no change. */
  @Test
  void resetConsumerAndClearConsumersSayWhatTheyChanged() throws Exception {
    Table t = table();
    long latest = t.snapshotManager().latestId().orElseThrow();
    String w = dir.toString();
    Result r = resetConsumer(w, "etl", latest);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo("Created consumer 'etl' of db.t resumes at snapshot " + latest + "\n");
    r = resetConsumer(w, "etl", latest + 1);
    assertThat(r.out())
        .isEqualTo(
            "Consumer 'etl' of db.t resumes at snapshot "
                + (latest + 1)
                + " (it was at snapshot "
                + latest
                + ")\n");
    r = resetConsumer(w, "etl", latest + 2);
    assertThat(r.code()).isNotZero();
    assertThat(r.err().strip())
        .startsWith("Error: --next-snapshot-id: Snapshot " + (latest + 2) + " is not one a read");
    // a bad id is refused before any table is read: the wrong table or warehouse says nothing
    r =
        run(
            "reset-consumer",
            "--warehouse",
            w + "-missing",
            "--table",
            "db.t",
            "--consumer-id",
            "a/b");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip()).startsWith("Error: --consumer-id: Invalid consumer-id 'a/b'");
    r = run("reset-consumer", "--warehouse", w, "--table", "db.t", "--consumer-id", "nobody");
    assertThat(r.err().strip())
        .isEqualTo("Error: --consumer-id: db.t has no consumer 'nobody'; its consumers are [etl]");
    r = run("clear-consumers", "--warehouse", w, "--table", "db.t", "--including-consumers", "(");
    assertThat(r.err().strip())
        .startsWith("Error: --including-consumers: '(' is not a regular expression");
    assertThat(consumers(t).all()).containsOnlyKeys("etl");
    assertThat(consumers(t).nextSnapshot("etl")).hasValue(latest + 1);

    resetConsumer(w, "app", latest);
    r = run("clear-consumers", "--warehouse", w, "--table", "db.t", "--excluding-consumers", "app");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "Deleted consumer 'etl' of db.t (it was at snapshot "
                + (latest + 1)
                + ")\n"
                + "Deleted 1 consumer of db.t\n");
    r = run("reset-consumer", "--warehouse", w, "--table", "db.t", "--consumer-id", "app");
    assertThat(r.out())
        .isEqualTo("Deleted consumer 'app' of db.t (it was at snapshot " + latest + ")\n");
    r = run("clear-consumers", "--warehouse", w, "--table", "db.t");
    assertThat(r.out()).isEqualTo("Deleted 0 consumers of db.t\n");
    assertThat(consumers(t).all()).isEmpty();
  }

  /**
   * create-tag and delete-tag say what they did; delete-tag deletes the files only the deleted tags
   * held; bad input is one line naming the option, and changes nothing.
   */
  @Test
  void createTagAndDeleteTagSayWhatTheyDid() throws Exception {
    Table t = table(); // snapshots 1 to 3
    String w = dir.toString();
    Result r =
        run(
            "create-tag",
            "--warehouse",
            w,
            "--table",
            "db.t",
            "--tag",
            "first",
            "--snapshot-id",
            "1");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("Created tag 'first' of db.t at snapshot 1\n");
    r = createTag(w, "--tag", "last");
    assertThat(r.out()).isEqualTo("Created tag 'last' of db.t at snapshot 3\n");

    r = createTag(w, "--tag", "last");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip())
        .isEqualTo("Error: --tag: Tag 'last' of db.t exists already; delete it first");
    r = createTag(w, "--tag", "x", "--snapshot-id", "7");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip())
        .isEqualTo("Error: --snapshot-id: Snapshot 7 is not there; db.t has snapshots 1 to 3");
    r = createTag(w, "--tag", "a  b");
    assertThat(r.err().strip()).startsWith("Error: --tag: Invalid tag name 'a  b'");
    // --timestamp: the oldest snapshot committed at or after it (create_tag_from_timestamp)
    long second = t.snapshotManager().snapshot(2).timeMillis();
    r = createTag(w, "--tag", "t2", "--timestamp", "" + second);
    assertThat(r.out()).as(r.err()).isEqualTo("Created tag 't2' of db.t at snapshot 2\n");
    r = createTag(w, "--tag", "t9", "--timestamp", "9999999999999");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip())
        .startsWith("Error: --timestamp: No snapshot of db.t was committed at or after ");
    r = createTag(w, "--tag", "t9", "--timestamp", "0", "--snapshot-id", "1");
    assertThat(r.err().strip())
        .isEqualTo(
            "Error: --timestamp: give one of --snapshot-id, --timestamp or --watermark, not more");
    r = run("delete-tag", "--warehouse", w, "--table", "db.t", "--tag", "t2");
    assertThat(r.code()).as(r.err()).isZero();
    r = run("delete-tag", "--warehouse", w, "--table", "db.t", "--tag", "first,nope");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip())
        .isEqualTo("Error: --tag: db.t has no tag 'nope'; its tags are [first, last]");
    assertThat(tags(t).names()).containsExactly("first", "last");

    // a new version of row 0 in a new file; snapshot 1's file is then held by tag 'first' only
    TestTables.writeBatch(t, List.of(TestTables.row(0L, "new")));
    r = run("compact", "--warehouse", w, "--table", "db.t");
    assertThat(r.code()).as(r.err()).isZero();
    r = run("expire-snapshots", "--warehouse", w, "--table", "db.t", "--retain-max", "1");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(dataFiles()).as("the tags' three, and the compacted one").hasSize(4);
    r = run("delete-tag", "--warehouse", w, "--table", "db.t", "--tag", "first, last");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .startsWith(
            "Deleted tag 'first' of db.t (snapshot 1)\n"
                + "Deleted tag 'last' of db.t (snapshot 3)\n"
                + "Deleted 2 tags of db.t; deleted 3 data files and ");
    assertThat(r.out()).endsWith(" metadata files only they referenced\n");
    assertThat(tags(t).names()).isEmpty();
    assertThat(dataFiles()).hasSize(1);
    assertThat(TestTables.readAll(t)).hasSize(3);
  }

  /**
   * rollback-to says what it did and the table reads the target's rows; a rerun finds it done; bad
   * input is one line naming the option, and changes nothing.
   */
  @Test
  void rollbackToSaysWhatItDid() throws Exception {
    Table t = table(); // snapshots 1 to 3, a file each
    String w = dir.toString();
    List<String> atThree = TestTables.toStrings(t.rowType(), TestTables.readAll(t));
    TestTables.writeBatch(t, List.of(TestTables.row(0L, "new"))); // snapshot 4
    assertThat(run("compact", "--warehouse", w, "--table", "db.t").code()).isZero(); // 5
    Result r = run("rollback-to", "--warehouse", w, "--table", "db.t", "--snapshot-id", "3");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "Rolled db.t back to snapshot 3: snapshot 6 replaces snapshot 5 (1 data file removed,"
                + " 3 data files copied)\n");
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrderElementsOf(atThree);
    r = run("rollback-to", "--warehouse", w, "--table", "db.t", "--snapshot-id", "3");
    assertThat(r.out())
        .isEqualTo(
            "The latest snapshot of db.t, 6, reads what snapshot 3 read already; nothing was"
                + " committed\n");

    r = run("rollback-to", "--warehouse", w, "--table", "db.t");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip())
        .isEqualTo(
            "Error: give one of --snapshot-id, --tag, --timestamp or --watermark: the point to roll"
                + " back to");
    r = run("rollback-to", "--warehouse", w, "--table", "db.t", "--tag", "a", "--snapshot-id", "1");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    r = run("rollback-to", "--warehouse", w, "--table", "db.t", "--tag", "nope");
    assertThat(r.err().strip()).isEqualTo("Error: --tag: db.t has no tag 'nope'; it has none");
    r = run("rollback-to", "--warehouse", w, "--table", "db.t", "--timestamp", "0");
    assertThat(r.err().strip())
        .startsWith(
            "Error: --timestamp: No snapshot of db.t still there was committed at or before");
    r = run("rollback-to", "--warehouse", w, "--table", "db.t", "--watermark", "0");
    assertThat(r.err().strip())
        .isEqualTo(
            "Error: --watermark: No snapshot of db.t still there has a watermark at or before 0;"
                + " none of its snapshots has a watermark (SQL writes record one when their input"
                + " has watermarks)");
    assertThat(t.snapshotManager().listIds())
        .as("nothing changed")
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L);

    // --watermark: the newest snapshot whose watermark is at or before it
    WriteBuilder wb = t.newBatchWriteBuilder();
    wb.newCommit().commit(TestTables.prepare(wb, List.of(TestTables.row(7L, "w"))), 1_000L);
    long seventh = t.snapshotManager().latestId().orElseThrow();
    List<String> atSeventh = TestTables.toStrings(t.rowType(), TestTables.readAll(t));
    wb = t.newBatchWriteBuilder();
    wb.newCommit().commit(TestTables.prepare(wb, List.of(TestTables.row(8L, "w"))), 2_000L);
    long eighth = seventh + 1;
    r = run("rollback-to", "--warehouse", w, "--table", "db.t", "--watermark", "1999");
    assertThat(r.out())
        .as(r.err())
        .startsWith("Rolled db.t back to snapshot " + seventh + ": snapshot ");
    long rolledBack = t.snapshotManager().latestId().orElseThrow();
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrderElementsOf(atSeventh);
    r = run("create-tag", "--warehouse", w, "--table", "db.t", "--tag", "w", "--watermark", "1500");
    assertThat(r.out())
        .as(r.err())
        .isEqualTo("Created tag 'w' of db.t at snapshot " + eighth + "\n");
    r =
        run(
            "replace-tag",
            "--warehouse",
            w,
            "--table",
            "db.t",
            "--tag",
            "w",
            "--snapshot-id",
            "" + seventh);
    assertThat(r.out())
        .as(r.err())
        .isEqualTo("Replaced tag 'w' of db.t: it keeps snapshot " + seventh + "\n");
    r = run("replace-tag", "--warehouse", w, "--table", "db.t", "--tag", "nope");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip()).isEqualTo("Error: --tag: db.t has no tag 'nope'; its tags are [w]");
    r = run("create-tag", "--warehouse", w, "--table", "db.t", "--tag", "x", "--watermark", "2001");
    assertThat(r.err().strip())
        .isEqualTo(
            "Error: --watermark: No snapshot of db.t has a watermark at or after 2001; the"
                + " watermarks of its snapshots still there go from 1000 (snapshot "
                + seventh
                + ") to 2000 (snapshot "
                + rolledBack
                + ")");
  }

  /** create-tag --time-retained and expire-tags say what they did; bad input names the option. */
  @Test
  void tagsWithATimeRetainedAndExpireTags() throws Exception {
    Table t = table(); // snapshots 1 to 3
    String w = dir.toString();
    Result r = createTag(w, "--tag", "short", "--time-retained", "2 h");
    assertThat(r.out()).as(r.err()).isEqualTo("Created tag 'short' of db.t at snapshot 3\n");
    assertThat(tags(t).get("short").orElseThrow().timeRetained()).hasHours(2);
    r = createTag(w, "--tag", "x", "--time-retained", "soon");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip())
        .isEqualTo(
            "Error: --time-retained: 'soon' is not a duration like '7 d', '12 h' or '30 min'");
    r = createTag(w, "--tag", "x", "--time-retained", "0 s");
    assertThat(r.err().strip())
        .isEqualTo("Error: --time-retained: must be longer than zero, like '7 d'");
    createTag(w, "--tag", "kept", "--snapshot-id", "1");

    r =
        run(
            "rename-tag",
            "--warehouse",
            w,
            "--table",
            "db.t",
            "--tag",
            "short",
            "--target-tag",
            "s");
    assertThat(r.out()).as(r.err()).isEqualTo("Renamed tag 'short' of db.t to 's' (snapshot 3)\n");
    assertThat(tags(t).get("s").orElseThrow().timeRetained()).hasHours(2);
    r =
        run(
            "rename-tag",
            "--warehouse",
            w,
            "--table",
            "db.t",
            "--tag",
            "s",
            "--target-tag",
            "kept");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip())
        .isEqualTo("Error: --target-tag: Tag 'kept' of db.t exists already; delete it first");
    r =
        run(
            "rename-tag",
            "--warehouse",
            w,
            "--table",
            "db.t",
            "--tag",
            "short",
            "--target-tag",
            "x");
    assertThat(r.err().strip())
        .isEqualTo("Error: --tag: db.t has no tag 'short'; its tags are [kept, s]");

    r = run("expire-tags", "--warehouse", w, "--table", "db.t");
    assertThat(r.out()).as(r.err()).isEqualTo("Expired 0 tags of db.t\n");
    r =
        run(
            "expire-tags",
            "--warehouse",
            w,
            "--table",
            "db.t",
            "--older-than",
            "2999-01-01 00:00:00");
    assertThat(r.out())
        .isEqualTo(
            "Expired tag 'kept' of db.t (snapshot 1)\n"
                + "Expired tag 's' of db.t (snapshot 3)\n"
                + "Expired 2 tags of db.t\n");
    assertThat(tags(t).names()).isEmpty();
    r = run("expire-tags", "--warehouse", w, "--table", "db.t", "--older-than", "later");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip()).startsWith("Error: --older-than: 'later' is neither a timestamp");
  }

  private static TagManager tags(Table t) {
    return new TagManager(t.store().fileIO(), t.store().paths());
  }

  private List<Path> dataFiles() throws Exception {
    try (var files = Files.walk(dir)) {
      return files.filter(f -> f.getFileName().toString().startsWith("data-")).toList();
    }
  }

  /** expire-partitions prints what it dropped; a bad option is named and changes nothing. */
  @Test
  void expirePartitionsPrintsThePartitionsItDropped() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "p",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .column("dt", DataTypes.STRING())
                .partitionKeys("dt")
                .build());
    TestTables.writeBatch(
        t,
        List.of(
            GenericRowData.of(1L, StringData.fromString("20000101")),
            GenericRowData.of(2L, StringData.fromString("29990101"))));
    String w = dir.toString();
    Result bad =
        run(
            "expire-partitions",
            "--warehouse",
            w,
            "--table",
            "db.p",
            "--expiration-time",
            "1 d",
            "--timestamp-pattern",
            "$day");
    assertThat(bad.err().strip())
        .isEqualTo(
            "Error: --timestamp-pattern: '$day' names $day, which is not a partition column;"
                + " partition columns are [dt]");
    Result r =
        run(
            "expire-partitions",
            "--warehouse",
            w,
            "--table",
            "db.p",
            "--expiration-time",
            "1 d",
            "--timestamp-formatter",
            "yyyyMMdd");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("dt=20000101\nExpired 1 partition of db.p\n");
    assertThat(TestTables.readAll(t)).hasSize(1);
  }

  private static Result resetConsumer(String warehouse, String id, long next) {
    return run(
        "reset-consumer",
        "--warehouse",
        warehouse,
        "--table",
        "db.t",
        "--consumer-id",
        id,
        "--next-snapshot-id",
        String.valueOf(next));
  }

  private static ConsumerManager consumers(Table t) {
    return new ConsumerManager(t.store().fileIO(), t.store().paths());
  }

  @Test
  void flinkConfNextToTheJarOrOneLevelUpIsFound() throws Exception {
    Path checkout = dir.resolve("checkout");
    Files.createDirectories(checkout.resolve("flink-conf"));
    Files.createDirectories(checkout.resolve("target"));
    Path jar = Files.createFile(checkout.resolve("target/sediment.jar"));

    assertThat(FlinkEnvironments.nextTo(jar)).contains(checkout.resolve("flink-conf"));
    assertThat(FlinkEnvironments.nextTo(dir.resolve("elsewhere/x.jar"))).isEmpty();
  }

  @Test
  void theEmbeddedFlinkBindsAFreePortNotTheLocalClustersRestPort() {
    // flink-conf/config.yaml sets rest.port 8081 for bin/flink; a CLI run next to a running local
    // cluster must not try to bind it.
    assertThat(FlinkEnvironments.configurationDirectory()).isPresent();
    assertThat(FlinkEnvironments.configuration().toMap())
        .containsEntry("rest.port", "8081")
        .containsEntry("rest.bind-port", "0");
  }

  /** {@code sediment create-tag} on db.t of warehouse {@code w} with {@code options}. */
  private static Result createTag(String w, String... options) {
    List<String> args = new ArrayList<>(List.of("create-tag", "--warehouse", w, "--table", "db.t"));
    args.addAll(List.of(options));
    return run(args.toArray(String[]::new));
  }
}
