package io.sediment.table;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.FileStoreScan;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.Predicates;
import io.sediment.schema.TableOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Plans a read of the latest snapshot (or a given one): partitions pruned by manifest statistics,
 * files pruned by their column statistics, one split per partition and bucket.
 */
public final class TableScan {

  private final FileStore store;
  private final Predicate filter;

  TableScan(FileStore store, Predicate filter) {
    this.store = store;
    this.filter = filter;
  }

  /** What a plan read, for observing pruning. */
  public record Plan(
      Long snapshotId,
      List<DataSplit> splits,
      int manifestsRead,
      int manifestsSkipped,
      int filesPruned) {}

  public Plan plan() {
    Optional<Snapshot> latest = store.snapshotManager().latest();
    return latest.isEmpty() ? new Plan(null, List.of(), 0, 0, 0) : plan(latest.get());
  }

  public Plan plan(Snapshot snapshot) {
    FileStoreScan scan = store.newScan();
    if (filter != null) {
      Predicates.projectTo(filter, store.partitionType()).ifPresent(scan::withPartitionFilter);
    }
    boolean primaryKey = store.schema().hasPrimaryKey();
    boolean deletionVectors =
        primaryKey && store.options().get(TableOptions.DELETION_VECTORS_ENABLED);
    // Primary-key tables merge versions of a key from several files: a file may be skipped only
    // by its key range (the filter's part on key columns). Deletion-vector tables read each key
    // from one file (level 0 is skipped), so any column's statistics prune.
    Predicate fileFilter = filter;
    if (primaryKey && !deletionVectors && filter != null) {
      fileFilter =
          Predicates.projectTo(filter, store.schema().keyType())
              .map(p -> Predicates.rebind(p, store.rowType()))
              .orElse(null);
    }
    Map<ManifestEntry.Identifier, List<DataFileMeta>> groups = new LinkedHashMap<>();
    int pruned = 0;
    for (ManifestEntry e : scan.plan(snapshot)) {
      DataFileMeta f = e.file();
      if (deletionVectors && f.level() == 0) {
        continue; // not yet compacted: invisible to readers of deletion-vector tables
      }
      if (fileFilter != null
          && !fileFilter.test(f.rowCount(), f.minValues(), f.maxValues(), f.nullCounts())) {
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
}
