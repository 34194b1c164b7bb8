package io.sediment.table;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.FileStoreScan;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.SnapshotWatermarks;
import io.sediment.manifest.TagManager;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.Predicates;
import io.sediment.schema.FieldMapping;
import io.sediment.schema.PrimaryKeyOptions;
import io.sediment.schema.ScanOptions;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TableSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Plans a read of the latest snapshot (or a given one): partitions pruned by manifest statistics,
 * files pruned by their column statistics, one split per partition and bucket.
 */
public final class TableScan {

  private final FileStore store;
  private final Predicate filter;

  /**
   * Whether a reader merges each bucket's files with level-0 files added later (a stream's start on
   * a deletion-vector table): a key then has several versions, so files are pruned by key range
   * only, as on tables without deletion vectors.
   */
  private final boolean mergedWithLevel0;

  /**
   * Whether the splits hold a deletion-vector table's level-0 files ({@link
   * ReadBuilder#withLevel0}).
   */
  private final boolean withLevel0;

  TableScan(FileStore store, Predicate filter) {
    this(store, filter, false, false);
  }

  private TableScan(
      FileStore store, Predicate filter, boolean mergedWithLevel0, boolean withLevel0) {
    this.store = store;
    this.filter = filter;
    this.mergedWithLevel0 = mergedWithLevel0;
    this.withLevel0 = withLevel0;
  }

  /** This scan for splits a reader merges with level-0 files ({@link #mergedWithLevel0}). */
  TableScan mergedWithLevel0() {
    return new TableScan(store, filter, true, withLevel0);
  }

  /**
   * A scan with level-0 files in the splits, when {@code withLevel0} ({@link
   * ReadBuilder#withLevel0}).
   */
  static TableScan of(FileStore store, Predicate filter, boolean withLevel0) {
    return new TableScan(store, filter, withLevel0, withLevel0);
  }

  /** What a plan read, for observing pruning. */
  public record Plan(
      Long snapshotId,
      List<DataSplit> splits,
      int manifestsRead,
      int manifestsSkipped,
      int filesPruned) {}

  /** Plans the snapshot the table's scan options choose ({@link #startSnapshot}). */
  public Plan plan() {
    Optional<Snapshot> start = startSnapshot();
    return start.isEmpty() ? new Plan(null, List.of(), 0, 0, 0) : plan(start.get());
  }

  /**
   * The snapshot a read starts from: {@code scan.tag-name}'s, the oldest whose watermark is at or
   * after {@code scan.watermark} (Paimon's), {@code scan.snapshot-id}, the newest committed at or
   * before {@code scan.timestamp-millis}, or the latest; empty when the table has no snapshot and
   * no particular one was asked for.
   *
   * @throws IllegalArgumentException when the snapshot asked for is not there (expired, not yet
   *     committed, or no snapshot that old), naming the earliest and latest snapshots still there
   */
  public Optional<Snapshot> startSnapshot() {
    TableOptions options = store.options();
    Long id = options.get(ScanOptions.SCAN_SNAPSHOT_ID);
    Long timestamp = options.get(ScanOptions.SCAN_TIMESTAMP_MILLIS);
    String tag = options.get(ScanOptions.SCAN_TAG_NAME);
    SnapshotManager snapshots = store.snapshotManager();
    if (tag != null) {
      TagManager tags = new TagManager(store.fileIO(), store.paths());
      Optional<TagManager.Tag> t = tags.get(tag);
      if (t.isEmpty()) {
        Set<String> names = tags.names();
        throw new IllegalArgumentException(
            "Tag '"
                + tag
                + "' (scan.tag-name) of "
                + tableName()
                + " is not there; "
                + (names.isEmpty() ? "the table has no tag" : "its tags are " + names));
      }
      return Optional.of(t.get().snapshot());
    }
    Long watermark = options.get(ScanOptions.SCAN_WATERMARK);
    if (watermark != null) {
      return Optional.of(
          SnapshotWatermarks.firstAtOrAfter(snapshots, watermark)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "No snapshot of "
                              + tableName()
                              + " has a watermark at or after "
                              + watermark
                              + " (scan.watermark); "
                              + SnapshotWatermarks.describe(snapshots))));
    }
    if (id != null) {
      Optional<Snapshot> s = snapshots.snapshotIfExists(id);
      if (s.isEmpty()) {
        throw new IllegalArgumentException(
            "Snapshot "
                + id
                + " (scan.snapshot-id) of "
                + tableName()
                + " is not there; "
                + present());
      }
      return s;
    }
    if (timestamp != null) {
      Optional<Snapshot> s = atOrBefore(snapshots, timestamp);
      if (s.isEmpty()) {
        throw new IllegalArgumentException(
            "No snapshot of "
                + tableName()
                + " committed at or before "
                + Instant.ofEpochMilli(timestamp)
                + " (scan.timestamp-millis "
                + timestamp
                + ") is there; "
                + present());
      }
      return s;
    }
    return snapshots.latest();
  }

  /** The newest snapshot committed at or before {@code millis}: a binary search over the ids. */
  public static Optional<Snapshot> atOrBefore(SnapshotManager snapshots, long millis) {
    return SnapshotWatermarks.committedAtOrBefore(snapshots, millis);
  }

  String tableName() {
    return "table " + store.paths().root();
  }

  String present() {
    List<Long> ids = store.snapshotManager().listIds();
    if (ids.isEmpty()) {
      return "the table has no snapshot yet";
    }
    Snapshot earliest = store.snapshotManager().snapshotIfExists(ids.get(0)).orElse(null);
    return "the earliest snapshot still there is "
        + ids.get(0)
        + (earliest == null
            ? ""
            : " (committed " + Instant.ofEpochMilli(earliest.timeMillis()) + ")")
        + ", the latest "
        + ids.get(ids.size() - 1);
  }

  public Plan plan(Snapshot snapshot) {
    FileStoreScan scan = store.newScan();
    if (filter != null) {
      Predicates.projectTo(filter, store.partitionType()).ifPresent(scan::withPartitionFilter);
    }
    boolean primaryKey = store.schema().hasPrimaryKey();
    boolean deletionVectors =
        primaryKey && store.options().get(PrimaryKeyOptions.DELETION_VECTORS_ENABLED);
    // Primary-key tables merge versions of a key from several files: a file may be skipped only
    // by its key range (the filter's part on key columns). Deletion-vector tables read each key
    // from one file (level 0 is skipped), so any column's statistics prune, unless the reader
    // merges level 0 in: pruned by value, a newer version would leave an older one to win.
    Predicate fileFilter = filter;
    if (primaryKey && (!deletionVectors || mergedWithLevel0) && filter != null) {
      fileFilter =
          Predicates.projectTo(filter, store.schema().keyType())
              .map(p -> Predicates.rebind(p, store.rowType()))
              .orElse(null);
    }
    Map<ManifestEntry.Identifier, List<DataFileMeta>> groups = new LinkedHashMap<>();
    Map<Long, FieldMapping> mappings = new HashMap<>();
    int pruned = 0;
    for (ManifestEntry e : scan.plan(snapshot)) {
      DataFileMeta f = e.file();
      if (deletionVectors && f.level() == 0 && !withLevel0) {
        continue; // not yet compacted: invisible to readers of deletion-vector tables
      }
      if (fileFilter != null && !mayMatch(fileFilter, f, mappings)) {
        pruned++;
        continue;
      }
      ManifestEntry.Identifier key = new ManifestEntry.Identifier(e.partition(), e.bucket(), 0, "");
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(f);
    }
    List<DataSplit> splits = new ArrayList<>();
    List<IndexManifest.Entry> dvs = List.of();
    if (deletionVectors && snapshot.indexManifest() != null) {
      try {
        dvs = new IndexManifest(store.fileIO(), store.paths()).read(snapshot.indexManifest());
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
    }
    Map<String, DeletionFile> byTarget = new HashMap<>();
    for (IndexManifest.Entry d : dvs) {
      byTarget.put(d.target(), d.deletionFile());
    }
    for (Map.Entry<ManifestEntry.Identifier, List<DataFileMeta>> g : groups.entrySet()) {
      if (!primaryKey) {
        // an append bucket is read in write order, whatever order compactions left in manifests
        g.getValue().sort(Comparator.comparingLong(DataFileMeta::minSequenceNumber));
      }
      Map<String, DeletionFile> splitDvs = new HashMap<>();
      if (!byTarget.isEmpty()) {
        for (DataFileMeta f : g.getValue()) {
          DeletionFile d =
              byTarget.get(
                  IndexManifest.Entry.of(
                          g.getKey().partition(),
                          g.getKey().bucket(),
                          new DeletionFile(f.fileName(), "", 0, 0, 0))
                      .target());
          if (d != null) {
            splitDvs.put(f.fileName(), d);
          }
        }
      }
      splits.add(
          new DataSplit(
              snapshot.id(), g.getKey().partition(), g.getKey().bucket(), g.getValue(), splitDvs));
    }
    return new Plan(snapshot.id(), splits, scan.manifestsRead(), scan.manifestsSkipped(), pruned);
  }

  /**
   * Whether {@code f} may hold rows matching {@code filter}, by its statistics. A file written with
   * another schema version has statistics of that version's columns: they are seen through the same
   * field-id mapping as its rows (a column added since is null in all its rows, a renamed one is
   * found by id, a widened one's min and max are converted).
   */
  private boolean mayMatch(Predicate filter, DataFileMeta f, Map<Long, FieldMapping> mappings) {
    TableSchema own = store.schema();
    if (f.schemaId() == own.id()) {
      return filter.test(f.rowCount(), f.minValues(), f.maxValues(), f.nullCounts());
    }
    if (!mappings.containsKey(f.schemaId())) {
      FieldMapping built;
      try {
        built = FieldMapping.of(store.schema(f.schemaId()), own, 0, null);
      } catch (IOException | IllegalArgumentException e) {
        built = null; // kept: this version's files are not pruned, reading them reports it
      }
      mappings.put(f.schemaId(), built);
    }
    FieldMapping m = mappings.get(f.schemaId());
    if (m == null) {
      return true;
    }
    if (m.isIdentity()) {
      return filter.test(f.rowCount(), f.minValues(), f.maxValues(), f.nullCounts());
    }
    return filter.test(
        f.rowCount(),
        m.newFullRow().replace(f.minValues()),
        m.newFullRow().replace(f.maxValues()),
        m.nullCounts(f.nullCounts(), f.rowCount()));
  }
}
