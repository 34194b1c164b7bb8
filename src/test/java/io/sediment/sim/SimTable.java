package io.sediment.sim;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.ManifestFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.TagManager;
import io.sediment.mergetree.DeletionVectors;
import io.sediment.mergetree.KeyValueLayout;
import io.sediment.mergetree.MergeFunctions;
import io.sediment.mergetree.RowIterator;
import io.sediment.mergetree.RunReader;
import io.sediment.mergetree.SortMergeReader;
import io.sediment.mergetree.SortedRun;
import io.sediment.schema.Schema;
import io.sediment.table.DataSplit;
import io.sediment.table.ReadBuilder;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * The simulated table {@code db.t (k BIGINT PRIMARY KEY, a INT, b STRING)} in a warehouse of its
 * own, and the reads the simulation checks it with.
 */
final class SimTable {

  final SimConfig config;
  final Path dir;
  final Path warehouse;
  final Path cache;

  SimTable(SimConfig config, Path dir) {
    this.config = config;
    this.dir = dir;
    this.warehouse = dir.resolve("wh");
    this.cache = dir.resolve("cache");
    Schema.Builder b =
        Schema.newBuilder()
            .column("k", DataTypes.BIGINT().notNull())
            .column("a", DataTypes.INT())
            .column("b", DataTypes.STRING());
    if (config.partitions() > 0) {
      b.column("p", DataTypes.INT().notNull()).partitionKeys("p");
    }
    b.option("local-cache.enabled", "true")
        .option("local-cache.dir", cache.toString())
        // every commit's automatic expiry keeps what the expiry actor leaves
        .option("snapshot.num-retained.min", "1")
        .option("snapshot.num-retained.max", "1000");
    if (config.smallBuffers()) {
      b.option("write-buffer-size", "600 b");
    }
    if (config.appendOnly()) {
      if (config.buckets() > 1) {
        b.option("bucket", String.valueOf(config.buckets())).option("bucket-key", "k");
      }
      b.option("compaction.min.file-num", String.valueOf(config.compactionTrigger()));
    } else {
      primaryKeyOptions(b);
    }
    catalog().createTable(new Identifier("db", "t"), b.build(), false);
  }

  private void primaryKeyOptions(Schema.Builder b) {
    if (config.partitions() == 0) {
      b.primaryKey("k");
    } else {
      b.primaryKey("k", "p");
    }
    b.option("bucket", String.valueOf(config.buckets()))
        .option("merge-engine", config.engine().replace("-remove", ""))
        .option("num-sorted-run.compaction-trigger", String.valueOf(config.compactionTrigger()));
    if (config.deletionVectors()) {
      b.option("deletion-vectors.enabled", "true");
    }
    if (config.sequenceField()) {
      b.option("sequence.field", "b");
    }
    if (config.lookupChangelog()) {
      b.option("changelog-producer", "lookup");
    } else if (config.inputChangelog()) {
      b.option("changelog-producer", "input");
    }
    if (config.smallBuffers() || config.stopTriggerWait()) {
      b.option("num-sorted-run.stop-trigger", String.valueOf(config.compactionTrigger() + 1));
    }
    if (config.stopTriggerWait()) {
      // write-only writers wait up to 1 s (on their own clocks) for the compaction job to keep
      // their buckets within one run above the compaction trigger; on the table, as a dedicated
      // job's users set it, so the job's merges leave them room (UniversalCompaction)
      b.option("write-only.stop-trigger-wait", "1 s");
    }
    switch (config.engine()) {
      case "aggregation" -> b.option("fields.a.aggregate-function", "sum");
      case "aggregation-remove" ->
          b.option("fields.a.aggregate-function", "sum")
              .option("aggregation.remove-record-on-delete", "true");
      case "first-row" -> b.option("ignore-delete", "true"); // refused otherwise, as in Paimon
      case "partial-update" -> b.option("partial-update.remove-record-on-delete", "true");
      default -> {}
    }
  }

  /** The partition of key {@code k} in a table of {@code partitions} partitions. */
  static int partitionOf(long k, int partitions) {
    return (int) Math.floorMod(k, (long) partitions);
  }

  /**
   * A filter for one partition, drawn for a compaction of a partitioned table one time in two (in
   * the JSON form {@code CALL sys.compact} takes); null: every partition.
   */
  String drawPartitionFilter(java.util.Random rnd) {
    if (config.partitions() == 0 || rnd.nextBoolean()) {
      return null;
    }
    return "{\"method\":\"equal\",\"field\":\"p\",\"literals\":["
        + rnd.nextInt(config.partitions())
        + "]}";
  }

  FileSystemCatalog catalog() {
    return TestTables.catalog(warehouse);
  }

  private Table table;

  /**
   * The table as the jobs loaded it when the run started (its options never change in a run; its
   * columns may, by the schema actor: then this is the schema every job started with).
   */
  Table table() {
    if (table == null) {
      table = catalog().getTable(new Identifier("db", "t"));
    }
    return table;
  }

  /** The table at its latest schema, as a user loading it now sees it. */
  Table latest() {
    return config.alters() ? catalog().getTable(new Identifier("db", "t")) : table();
  }

  Path tableDir() {
    return warehouse.resolve("db.db").resolve("t");
  }

  /** What users read: rows rendered {@code (k,a,b)}. */
  List<String> userRead(Table t) throws IOException {
    // columns k, a, b by name: the schema actor adds and moves other columns
    ReadBuilder rb = t.newReadBuilder().withProjection("k", "a", "b");
    return TestTables.toStrings(rb.readType(), rb.newRead().readAll(rb.newScan().plan().splits()));
  }

  /**
   * The logical content of the latest snapshot, whatever the table's read path: every sorted run of
   * each bucket, level 0 included, with deletion vectors applied, merged by key and sequence number
   * with the merge engine. On a deletion-vector table this is what users read once level 0 is
   * compacted.
   */
  List<String> logicalRead(Table t) throws IOException {
    FileStore store = t.store();
    Optional<Snapshot> latest = store.snapshotManager().latest();
    if (latest.isEmpty()) {
      return List.of();
    }
    KeyValueLayout layout = new KeyValueLayout(store.schema());
    Map<String, DeletionFile> vectors = new HashMap<>();
    if (latest.get().indexManifest() != null) {
      for (IndexManifest.Entry e :
          new IndexManifest(store.fileIO(), store.paths()).read(latest.get().indexManifest())) {
        vectors.put(e.deletionFile().dataFile(), e.deletionFile());
      }
    }
    Map<ManifestEntry.Identifier, List<ManifestEntry>> buckets = new LinkedHashMap<>();
    for (ManifestEntry e : store.newScan().plan(latest.get())) {
      buckets
          .computeIfAbsent(
              new ManifestEntry.Identifier(e.partition(), e.bucket(), 0, ""),
              x -> new ArrayList<>())
          .add(e);
    }
    List<String> out = new ArrayList<>();
    for (List<ManifestEntry> entries : buckets.values()) {
      List<DataFileMeta> files = new ArrayList<>();
      List<DeletionFile> dvs = new ArrayList<>();
      for (ManifestEntry e : entries) {
        files.add(e.file());
        if (vectors.containsKey(e.file().fileName())) {
          dvs.add(vectors.get(e.file().fileName()));
        }
      }
      Map<String, RoaringBitmap> bitmaps = DeletionVectors.read(store, dvs);
      ManifestEntry first = entries.get(0);
      List<RowIterator> runs = new ArrayList<>();
      for (SortedRun r : SortedRun.of(files, layout.keyRowComparator())) {
        runs.add(
            new RunReader(store, layout, first.partition(), first.bucket(), r.files(), bitmaps));
      }
      try (SortMergeReader merged =
          new SortMergeReader(runs, layout, MergeFunctions.create(store.schema(), layout), true)) {
        RowData kv;
        List<String> names = store.schema().fieldNames();
        int k = names.indexOf("k");
        int a = names.indexOf("a");
        int b = names.indexOf("b");
        boolean wideA = layout.valueType().getTypeAt(a).getTypeRoot() == LogicalTypeRoot.BIGINT;
        while ((kv = merged.next()) != null) {
          out.add(
              SimModel.render(
                  kv.getLong(k),
                  kv.isNullAt(a) ? null : wideA ? (Object) kv.getLong(a) : kv.getInt(a),
                  kv.isNullAt(b) ? null : kv.getString(b).toString()));
        }
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * Names of the files under the table that a listed snapshot references (data files, index
   * manifests, deletion-vector files, and its own changelog files; a tag's snapshot's too), after
   * reading every listed snapshot's metadata: a snapshot whose metadata cannot be read fails.
   */
  static Set<String> referencedByEverySnapshot(Table t) {
    Set<String> referenced = new HashSet<>();
    SnapshotManager sm = t.snapshotManager();
    IndexManifest index = new IndexManifest(t.store().fileIO(), t.store().paths());
    Map<String, List<ManifestEntry>> manifests = new HashMap<>();
    List<Snapshot> kept = new ArrayList<>();
    for (long id : sm.listIds()) {
      try {
        kept.add(sm.snapshot(id));
      } catch (RuntimeException e) {
        throw new AssertionError("listed snapshot " + id + " is not readable: " + e, e);
      }
    }
    // a tag keeps what its snapshot referenced, also after that snapshot expired
    new TagManager(t.store().fileIO(), t.store().paths())
        .all()
        .values()
        .forEach(tag -> kept.add(tag.snapshot()));
    for (Snapshot s : kept) {
      if (s.changelogManifestList() == null) {
        continue;
      }
      try { // a kept snapshot's changelog (a tag keeps its snapshot's too, as expiry does)
        for (ManifestFileMeta m : t.store().manifestList().read(s.changelogManifestList())) {
          for (ManifestEntry e : t.store().manifestFile().read(m)) {
            referenced.add(e.file().fileName());
          }
        }
      } catch (IOException | RuntimeException e) {
        throw new AssertionError("snapshot " + s.id() + "'s changelog is not readable: " + e, e);
      }
    }
    for (Snapshot s : kept) {
      try {
        // each manifest read once: consecutive snapshots share most of them
        Set<String> live = new LinkedHashSet<>();
        Set<String> deleted = new HashSet<>();
        List<ManifestFileMeta> metas =
            new ArrayList<>(t.store().manifestList().read(s.baseManifestList()));
        metas.addAll(t.store().manifestList().read(s.deltaManifestList()));
        for (ManifestFileMeta m : metas) {
          List<ManifestEntry> entries = manifests.get(m.fileName());
          if (entries == null) {
            entries = t.store().manifestFile().read(m);
            manifests.put(m.fileName(), entries);
          }
          for (ManifestEntry e : entries) {
            (e.kind() == FileKind.ADD ? live : deleted).add(e.file().fileName());
          }
        }
        live.removeAll(deleted);
        referenced.addAll(live);
        if (s.indexManifest() != null) {
          referenced.add(s.indexManifest());
          for (IndexManifest.Entry e : index.read(s.indexManifest())) {
            referenced.add(e.deletionFile().dvFile());
          }
        }
      } catch (IOException | RuntimeException e) {
        throw new AssertionError(
            "snapshot " + s.id() + " (listed or tagged) is not readable: " + e, e);
      }
    }
    return referenced;
  }

  /**
   * Data files and deletion-vector files no listed snapshot references and no name excuses; fails
   * when a file a listed snapshot references is missing (the snapshot could not be read).
   */
  TreeSet<String> unreferencedFiles(Table t, Collection<String> excused) {
    Set<String> referenced = referencedByEverySnapshot(t);
    Path index = tableDir().resolve("index");
    TreeSet<String> out = new TreeSet<>();
    Set<String> present = new HashSet<>();
    try (Stream<Path> s = Files.walk(tableDir())) {
      for (Path p : (Iterable<Path>) s::iterator) {
        String name = p.getFileName().toString();
        boolean dataOrVector =
            p.startsWith(index)
                ? name.startsWith("dv-")
                : (name.startsWith("data-") || name.startsWith("changelog-"))
                    && !p.startsWith(tableDir().resolve(".markers"));
        if (!Files.isRegularFile(p)) {
          continue;
        }
        present.add(name);
        if (dataOrVector && !referenced.contains(name) && !excused.contains(name)) {
          out.add(tableDir().relativize(p).toString());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    TreeSet<String> missing = new TreeSet<>(referenced);
    missing.removeAll(present);
    if (!missing.isEmpty()) {
      throw new AssertionError("files listed snapshots reference are missing: " + missing);
    }
    return out;
  }

  /** Files under {@code .markers/} (markers and release records). */
  List<String> markerFiles() {
    Path markers = tableDir().resolve(".markers");
    if (!Files.exists(markers)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(markers)) {
      return s.filter(Files::isRegularFile)
          .map(p -> markers.relativize(p).toString())
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The outputs live markers name. */
  Set<String> markedOutputs() {
    Set<String> out = new HashSet<>();
    Path markers = tableDir().resolve(".markers");
    if (!Files.exists(markers)) {
      return out;
    }
    try (Stream<Path> s = Files.walk(markers)) {
      for (Path m : (Iterable<Path>) s::iterator) {
        if (Files.isRegularFile(m) && m.getFileName().toString().startsWith("marker-")) {
          String recorded = Files.readString(m, StandardCharsets.UTF_8).trim();
          out.add(recorded.substring(recorded.lastIndexOf('/') + 1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Names of the data files of the latest snapshot. */
  static Set<String> liveFiles(Table t) {
    Set<String> out = new HashSet<>();
    for (DataSplit s : t.newReadBuilder().newScan().plan().splits()) {
      for (DataFileMeta f : s.files()) {
        out.add(f.fileName());
      }
    }
    return out;
  }
}
