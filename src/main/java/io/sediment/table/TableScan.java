package io.sediment.table;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.FileStoreScan;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.Predicates;
import java.util.ArrayList;
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
  public record Plan(Long snapshotId, List<DataSplit> splits, int manifestsRead, int manifestsSkipped, int filesPruned) {}

  public Plan plan() {
    Optional<Snapshot> latest = store.snapshotManager().latest();
    return latest.isEmpty() ? new Plan(null, List.of(), 0, 0, 0) : plan(latest.get());
  }

  public Plan plan(Snapshot snapshot) {
    FileStoreScan scan = store.newScan();
    if (filter != null) {
      Predicates.projectTo(filter, store.partitionType()).ifPresent(scan::withPartitionFilter);
    }
    Map<ManifestEntry.Identifier, List<DataFileMeta>> groups = new LinkedHashMap<>();
    int pruned = 0;
    for (ManifestEntry e : scan.plan(snapshot)) {
      DataFileMeta f = e.file();
      if (filter != null
          && !filter.test(f.rowCount(), f.minValues(), f.maxValues(), f.nullCounts())) {
        pruned++;
        continue;
      }
      ManifestEntry.Identifier key = new ManifestEntry.Identifier(e.partition(), e.bucket(), 0, "");
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(f);
    }
    List<DataSplit> splits = new ArrayList<>();
    for (Map.Entry<ManifestEntry.Identifier, List<DataFileMeta>> g : groups.entrySet()) {
      splits.add(new DataSplit(snapshot.id(), g.getKey().partition(), g.getKey().bucket(), g.getValue()));
    }
    return new Plan(snapshot.id(), splits, scan.manifestsRead(), scan.manifestsSkipped(), pruned);
  }
}
