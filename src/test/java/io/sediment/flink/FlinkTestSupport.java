package io.sediment.flink;

import static io.sediment.testutil.TestTables.row;

import io.sediment.compact.CompactSpec;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;

/** Shared helpers of the topology tests. */
final class FlinkTestSupport {

  private FlinkTestSupport() {}

  /**
   * A streaming environment on the test's MiniCluster that checkpoints every 300 ms and restarts a
   * failed job up to 5 times.
   */
  static StreamExecutionEnvironment restartingStreamEnv() {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.enableCheckpointing(300);
    return env;
  }

  /** An environment on the test's MiniCluster that restarts a failed job up to 3 times. */
  static StreamExecutionEnvironment restartingEnv() {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    return StreamExecutionEnvironment.getExecutionEnvironment(conf);
  }

  /** Files under the table's {@code index/} that no snapshot's index manifest lists. */
  static Set<String> orphanIndexFiles(Table table, Path tableDir) throws IOException {
    Set<String> referenced = new HashSet<>();
    IndexManifest index = new IndexManifest(table.store().fileIO(), table.store().paths());
    for (Snapshot s : snapshots(table)) {
      if (s.indexManifest() != null) {
        referenced.add(s.indexManifest());
        for (IndexManifest.Entry e : index.read(s.indexManifest())) {
          referenced.add(e.deletionFile().dvFile());
        }
      }
    }
    Set<String> out = new HashSet<>();
    Path dir = tableDir.resolve("index");
    if (Files.isDirectory(dir)) {
      try (Stream<Path> files = Files.list(dir)) {
        files
            .map(p -> p.getFileName().toString())
            .filter(n -> !n.startsWith(".") && !referenced.contains(n))
            .forEach(out::add);
      }
    }
    return out;
  }

  /** Files left under {@code <table>/.markers/} (markers and release records). */
  static List<Path> markerFiles(Path tableDir) throws IOException {
    Path dir = tableDir.resolve(".markers");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).toList();
    }
  }

  /** The dedicated compaction job of table {@code db.t}: compacts 3 or more files, polls fast. */
  static CompactJob dedicatedJob(Path warehouse) {
    return dedicatedJob(warehouse, CompactListener.NONE);
  }

  /** {@link #dedicatedJob(Path)} with a listener (injected faults). */
  static CompactJob dedicatedJob(Path warehouse, CompactListener listener) {
    return CompactJob.builder(warehouse.toString(), "db.t")
        .commitUser("dedicated")
        .option("compaction.min.file-num", "3")
        .option("compaction.discovery-interval", "100ms")
        .parallelism(2)
        .listener(listener)
        .build();
  }

  static Schema.Builder partitioned() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("p", DataTypes.STRING())
        .column("note", DataTypes.STRING())
        .partitionKeys("p");
  }

  /** A primary-key table's schema: k BIGINT key, v STRING, one bucket, write-only. */
  static Schema.Builder oneKeyBucket() {
    return Schema.newBuilder()
        .column("k", DataTypes.BIGINT().notNull())
        .column("v", DataTypes.STRING())
        .primaryKey("k")
        .option("bucket", "1")
        .option("write-only", "true");
  }

  /**
   * db.t in warehouse {@code dir}: partitions a, b and c of four small files each, and
   * compaction.min.file-num 3, so that a plan has one append task per partition.
   */
  static Table threePartitionsOfFourFiles(Path dir) {
    Table table =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            partitioned().option("compaction.min.file-num", "3").build());
    fill(table, 0, 4, 5, "a", "b", "c");
    return table;
  }

  /** The targets of compacting db.t of warehouse {@code dir}. */
  static CompactTargets targets(Path dir, Table table) {
    return new CompactTargets(dir.toString(), CompactSpec.forTable("db.t", table.store()).build());
  }

  /** {@code commits} batch commits, each one small file per partition; returns the rows. */
  static List<RowData> fill(
      Table table, long firstId, int commits, int perCommit, String... partitions) {
    List<RowData> all = new ArrayList<>();
    long id = firstId;
    for (int c = 0; c < commits; c++) {
      List<RowData> batch = new ArrayList<>();
      for (String p : partitions) {
        for (int i = 0; i < perCommit; i++, id++) {
          batch.add(row(id, p, "n" + id));
        }
      }
      TestTables.writeBatch(table, batch);
      all.addAll(batch);
    }
    return all;
  }

  static List<String> rows(Table table) {
    return TestTables.toStrings(table.rowType(), TestTables.readAll(table));
  }

  static List<Snapshot> snapshots(Table table) {
    List<Snapshot> out = new ArrayList<>();
    for (long id : table.snapshotManager().listIds()) {
      out.add(table.snapshotManager().snapshot(id));
    }
    return out;
  }

  static Set<String> liveFiles(Table table) {
    Set<String> names = new HashSet<>();
    table
        .latestSnapshot()
        .ifPresent(
            s -> {
              for (ManifestEntry e : table.store().newScan().plan(s)) {
                names.add(e.file().fileName());
              }
            });
    return names;
  }

  static List<DataFileMeta> liveFileMetas(Table table) {
    List<DataFileMeta> out = new ArrayList<>();
    table
        .latestSnapshot()
        .ifPresent(
            s -> {
              for (ManifestEntry e : table.store().newScan().plan(s)) {
                out.add(e.file());
              }
            });
    return out;
  }

  /** Names of data files referenced by any snapshot of the table. */
  static Set<String> filesOfAnySnapshot(Table table) {
    Set<String> names = new HashSet<>();
    for (Snapshot s : snapshots(table)) {
      for (ManifestEntry e : table.store().newScan().plan(s)) {
        names.add(e.file().fileName());
      }
    }
    return names;
  }

  /** Data files on disk that no snapshot references. */
  static Set<String> orphanDataFiles(Table table, Path tableDir) {
    Set<String> referenced = filesOfAnySnapshot(table);
    Set<String> out = new HashSet<>();
    for (Path p : TestTables.dataFiles(tableDir)) {
      if (!referenced.contains(p.getFileName().toString())) {
        out.add(p.getFileName().toString());
      }
    }
    return out;
  }

  /** Live files per partition path of the latest snapshot. */
  static java.util.Map<String, Integer> filesPerPartition(Table table) {
    java.util.Map<String, Integer> out = new java.util.TreeMap<>();
    table
        .latestSnapshot()
        .ifPresent(
            s -> {
              for (ManifestEntry e : table.store().newScan().plan(s)) {
                out.merge(table.store().partitionPath(e.partition()), 1, Integer::sum);
              }
            });
    return out;
  }

  /** Names of data files on disk that no snapshot's latest state references. */
  static Set<String> unreferencedDataFiles(Table table, Path tableDir) {
    Set<String> live = liveFiles(table);
    Set<String> out = new HashSet<>();
    for (Path p : TestTables.dataFiles(tableDir)) {
      if (!live.contains(p.getFileName().toString())) {
        out.add(p.getFileName().toString());
      }
    }
    return out;
  }
}
