package io.sediment.cli;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.schema.Schema;
import io.sediment.systable.SystemTables;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The system tables answer with the numbers {@code sediment inspect --json} gives for the same
 * table: files, rows and bytes per partition, sorted runs per bucket, snapshot count; the manifests
 * account for exactly the live files, and each file's key range is in its partition.
 */
class SystemTablesMatchInspectTest {

  @TempDir Path dir;

  /**
   * System tables show times in the JVM's time zone, as Paimon's do and as {@code older_than} is
   * read: a snapshot's or tag's time copied into a maintenance call names the same instant, in any
   * zone.
   */
  @Test
  void timesAreInTheTimeZoneOlderThanIsReadIn() throws Exception {
    java.util.TimeZone saved = java.util.TimeZone.getDefault();
    try {
      for (String zone : List.of("UTC", "America/New_York", "Asia/Kolkata", "Pacific/Chatham")) {
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone(zone));
        Table t =
            TestTables.create(
                TestTables.catalog(dir.resolve(zone.replace('/', '_'))),
                "t",
                TestTables.idValueSchema().build());
        TestTables.writeBatch(t, List.of(row(1L, "a")));
        new io.sediment.maintenance.Tags(t).create("x", java.util.OptionalLong.empty());
        long committed = t.latestSnapshot().orElseThrow().timeMillis();
        RowData snapshot = SystemTables.of("snapshots").orElseThrow().rows(t).get(0);
        RowData tag = SystemTables.of("tags").orElseThrow().rows(t).get(0);
        for (org.apache.flink.table.data.TimestampData shown :
            List.of(snapshot.getTimestamp(5, 3), tag.getTimestamp(3, 3))) {
          String asTyped = shown.toLocalDateTime().withNano(0).toString().replace('T', ' ');
          long read = io.sediment.maintenance.PointInTime.parse(asTyped, t.store().clock());
          assertThat(read).as("%s in %s", asTyped, zone).isEqualTo(committed / 1000 * 1000);
        }
      }
    } finally {
      java.util.TimeZone.setDefault(saved);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void partitionsBucketsAndSnapshotsAgreeWithInspect() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("p", DataTypes.STRING().notNull())
                .primaryKey("id", "p")
                .partitionKeys("p")
                .option("bucket", "3")
                .option("num-sorted-run.compaction-trigger", "3")
                .build());
    Random random = new Random(5);
    for (int i = 0; i < 8; i++) {
      List<GenericRowData> rows = new ArrayList<>();
      for (int j = 0; j < 40; j++) {
        rows.add(row((long) random.nextInt(100), "p" + random.nextInt(3)));
      }
      TestTables.writeBatch(t, rows);
    }
    Map<String, Object> info = TableInspector.inspect(t);
    assertThat(SystemTables.of("snapshots").orElseThrow().rows(t))
        .hasSize(((Number) info.get("snapshotCount")).intValue());

    Map<String, List<Long>> partitions = new HashMap<>();
    for (RowData r : SystemTables.of("partitions").orElseThrow().rows(t)) {
      partitions.put(r.getString(0).toString(), List.of(r.getLong(3), r.getLong(1), r.getLong(2)));
    }
    Map<String, Integer> runs = new HashMap<>();
    for (RowData r : SystemTables.of("buckets").orElseThrow().rows(t)) {
      runs.put(r.getString(0) + "/" + r.getInt(1), r.getInt(2));
    }
    List<Map<String, Object>> parts = (List<Map<String, Object>>) info.get("partitions");
    assertThat(parts).hasSize(partitions.size());
    int bucketsSeen = 0;
    for (Map<String, Object> p : parts) {
      String name = (String) p.get("partition");
      assertThat(partitions.get(name))
          .as("files, rows, bytes of %s", name)
          .containsExactly(
              ((Number) p.get("files")).longValue(),
              ((Number) p.get("rows")).longValue(),
              ((Number) p.get("bytes")).longValue());
      for (Map<String, Object> b : (List<Map<String, Object>>) p.get("buckets")) {
        assertThat(runs.get(name + "/" + b.get("bucket")))
            .as("sorted runs of %s bucket %s", name, b.get("bucket"))
            .isEqualTo(((Number) b.get("sortedRuns")).intValue());
        bucketsSeen++;
      }
    }
    assertThat(bucketsSeen).isEqualTo(runs.size()).isPositive();

    // t$manifests: added minus deleted files over the latest snapshot's lists = the live files
    long liveFiles = 0;
    for (Map<String, Object> p : parts) {
      liveFiles += ((Number) p.get("files")).longValue();
    }
    long net = 0;
    for (RowData r : SystemTables.of("manifests").orElseThrow().rows(t)) {
      net += r.getLong(2) - r.getLong(3);
    }
    assertThat(net).isEqualTo(liveFiles);
    assertThat(SystemTables.rowType(SystemTables.of("manifests").orElseThrow()).getFieldNames())
        .as("Paimon's names, and Sediment's list")
        .containsExactly(
            "file_name",
            "file_size",
            "num_added_files",
            "num_deleted_files",
            "schema_id",
            "min_partition_stats",
            "max_partition_stats",
            "list");
    List<RowData> files = SystemTables.of("files").orElseThrow().rows(t);
    assertThat(files).hasSize((int) liveFiles);
    for (RowData f : files) {
      long min =
          Long.parseLong(f.getString(12).toString().replaceAll("[\\[\\] ]", "").split(",")[0]);
      long max =
          Long.parseLong(f.getString(13).toString().replaceAll("[\\[\\] ]", "").split(",")[0]);
      assertThat(min).as("min_key <= max_key of %s", f.getString(2)).isLessThanOrEqualTo(max);
      assertThat(f.getString(13).toString()).endsWith(f.getString(0).toString().substring(2) + "]");
    }
  }
}
