package io.sediment.manifest;

import io.sediment.predicate.Predicate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the live data files of a snapshot from its manifests: base entries, then delta entries; a
 * file is live when it has an ADD entry and no DELETE entry (see {@link ManifestEntry.Identifier}).
 * A partition filter skips whole manifests whose partition statistics exclude it, and entries of
 * other partitions inside the rest.
 */
public final class FileStoreScan {

  private final ManifestList manifestList;
  private final ManifestFile manifestFile;
  private Predicate partitionFilter;
  private Integer bucket;
  private int manifestsRead;
  private int manifestsSkipped;

  public FileStoreScan(ManifestList manifestList, ManifestFile manifestFile) {
    this.manifestList = manifestList;
    this.manifestFile = manifestFile;
  }

  /** Keep only partitions that may match; the predicate is on the partition row type. */
  public FileStoreScan withPartitionFilter(Predicate partitionFilter) {
    this.partitionFilter = partitionFilter;
    return this;
  }

  public FileStoreScan withBucket(Integer bucket) {
    this.bucket = bucket;
    return this;
  }

  /** The manifests of a snapshot, base first then delta, pruned by the partition filter. */
  public List<ManifestFileMeta> manifests(Snapshot snapshot) throws IOException {
    List<ManifestFileMeta> all = new ArrayList<>(manifestList.read(snapshot.baseManifestList()));
    all.addAll(manifestList.read(snapshot.deltaManifestList()));
    return all;
  }

  /** The live files of {@code snapshot} (ADD entries only), in the order they were added. */
  public List<ManifestEntry> plan(Snapshot snapshot) {
    try {
      List<ManifestFileMeta> metas = manifests(snapshot);
      Map<ManifestEntry.Identifier, ManifestEntry> live = new LinkedHashMap<>();
      Set<ManifestEntry.Identifier> deleted = new HashSet<>();
      for (ManifestFileMeta meta : metas) {
        if (!selected(meta)) {
          continue;
        }
        manifestFile.read(
            meta.fileName(),
            partitionFilter,
            e -> {
              if (bucket != null && e.bucket() != bucket) {
                return;
              }
              if (e.kind() == FileKind.ADD) {
                live.put(e.identifier(), e);
              } else {
                deleted.add(e.identifier());
              }
            });
      }
      live.keySet().removeAll(deleted);
      return new ArrayList<>(live.values());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the manifests of snapshot " + snapshot.id(), e);
    }
  }

  /**
   * What {@code snapshot} changed: the ADD and DELETE entries of its delta manifests, in order,
   * pruned by the partition filter and bucket.
   */
  public List<ManifestEntry> readDelta(Snapshot snapshot) throws IOException {
    return readList(snapshot.deltaManifestList());
  }

  /**
   * The changelog files {@code snapshot} added (ADD entries of its changelog manifest list), within
   * the filters; none when it has no changelog.
   */
  public List<ManifestEntry> readChangelog(Snapshot snapshot) throws IOException {
    return snapshot.changelogManifestList() == null
        ? new ArrayList<>()
        : readList(snapshot.changelogManifestList());
  }

  /** The entries of one manifest list's manifests, in order, within the filters. */
  private List<ManifestEntry> readList(String list) throws IOException {
    List<ManifestEntry> out = new ArrayList<>();
    for (ManifestFileMeta meta : manifestList.read(list)) {
      if (!selected(meta)) {
        continue;
      }
      manifestFile.read(
          meta.fileName(),
          partitionFilter,
          e -> {
            if (bucket == null || e.bucket() == bucket) {
              out.add(e);
            }
          });
    }
    return out;
  }

  /** Whether the manifest may hold entries of the partition filter (counted as read or skipped). */
  private boolean selected(ManifestFileMeta meta) {
    if (partitionFilter != null
        && !partitionFilter.test(
            meta.numEntries(),
            meta.minPartition(),
            meta.maxPartition(),
            meta.partitionNullCounts())) {
      manifestsSkipped++;
      return false;
    }
    manifestsRead++;
    return true;
  }

  /** Manifest files opened by {@link #plan} so far. */
  public int manifestsRead() {
    return manifestsRead;
  }

  /** Manifest files skipped by partition statistics so far. */
  public int manifestsSkipped() {
    return manifestsSkipped;
  }
}
