package io.sediment.manifest;

import io.sediment.data.BinaryRows;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps the number of manifests of a snapshot small so planning stays fast after thousands of
 * commits, without giving up partition pruning.
 *
 * <p>A manifest is <em>settled</em> when it holds at least {@link #SETTLED_ENTRIES} entries or is
 * at least the target size; the others are small. When at least {@code minCount} manifests are
 * small, they are merged: an ADD and a DELETE of the same file cancel out, the rest is sorted by
 * partition (stable, so add order within a partition is kept) and written again, starting a new
 * manifest at a partition boundary once the current one is settled, or at the target size. So
 * merged manifests cover narrow partition ranges, and a one-partition plan opens only the few that
 * can hold the partition.
 *
 * <p>If a DELETE among the small manifests refers to a file added in a settled manifest, all
 * manifests are merged, so removed files do not linger in the metadata.
 */
public final class ManifestMerger {

  /**
   * Entries that make a manifest worth keeping as it is: reading this many entries costs about as
   * much as opening one more small Parquet file, so a one-partition plan reads at most about this
   * many entries of other partitions, and a full plan opens few files.
   */
  public static final int SETTLED_ENTRIES = 1024;

  private final ManifestFile manifestFile;
  private final long targetFileSize;
  private final int minCount;

  public ManifestMerger(ManifestFile manifestFile, long targetFileSize, int minCount) {
    this.manifestFile = manifestFile;
    this.targetFileSize = targetFileSize;
    this.minCount = minCount;
  }

  /** Result of a merge: the manifests to use, and those newly written (to delete on failure). */
  public record Result(List<ManifestFileMeta> manifests, List<ManifestFileMeta> written) {}

  public Result maybeMerge(List<ManifestFileMeta> manifests) throws IOException {
    List<ManifestFileMeta> small = new ArrayList<>();
    List<ManifestFileMeta> settled = new ArrayList<>();
    for (ManifestFileMeta m : manifests) {
      boolean isSettled = m.numEntries() >= SETTLED_ENTRIES || m.fileSize() >= targetFileSize;
      (isSettled ? settled : small).add(m);
    }
    if (small.size() < minCount) {
      return new Result(manifests, List.of());
    }
    List<ManifestEntry> entries = resolve(small);
    boolean unresolvedDeletes = entries.stream().anyMatch(e -> e.kind() == FileKind.DELETE);
    if (unresolvedDeletes && !settled.isEmpty()) {
      entries = resolve(manifests);
      settled = List.of();
    }
    entries.sort(
        Comparator.comparing(
            (ManifestEntry e) -> BinaryRows.toBytes(e.partition()), Arrays::compareUnsigned));
    List<ManifestFileMeta> written = manifestFile.write(entries, SETTLED_ENTRIES);
    List<ManifestFileMeta> result = new ArrayList<>(settled);
    result.addAll(written);
    return new Result(result, written);
  }

  /** The entries of the manifests with each ADD/DELETE pair of one file cancelled. */
  private List<ManifestEntry> resolve(List<ManifestFileMeta> metas) throws IOException {
    Map<ManifestEntry.Identifier, ManifestEntry> adds = new LinkedHashMap<>();
    Map<ManifestEntry.Identifier, ManifestEntry> deletes = new LinkedHashMap<>();
    for (ManifestFileMeta m : metas) {
      for (ManifestEntry e : manifestFile.read(m)) {
        (e.kind() == FileKind.ADD ? adds : deletes).put(e.identifier(), e);
      }
    }
    List<ManifestEntry> entries = new ArrayList<>();
    for (Map.Entry<ManifestEntry.Identifier, ManifestEntry> e : adds.entrySet()) {
      if (deletes.remove(e.getKey()) == null) {
        entries.add(e.getValue());
      }
    }
    // DELETEs whose ADD sits in a manifest not merged here must stay.
    entries.addAll(deletes.values());
    return entries;
  }
}
