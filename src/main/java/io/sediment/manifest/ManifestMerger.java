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
 * commits. When at least {@code minCount} manifests are smaller than the target size, those
 * manifests are merged: an ADD and a DELETE of the same file inside them cancel out, what remains
 * is sorted by partition (stable, so add order within a partition is kept, and each merged
 * manifest covers a narrow partition range for pruning) and written in files of about the target
 * size. Larger manifests are left as they are.
 */
public final class ManifestMerger {

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
    List<ManifestFileMeta> kept = new ArrayList<>();
    for (ManifestFileMeta m : manifests) {
      (m.fileSize() < targetFileSize ? small : kept).add(m);
    }
    if (small.size() < minCount) {
      return new Result(manifests, List.of());
    }
    Map<ManifestEntry.Identifier, ManifestEntry> adds = new LinkedHashMap<>();
    Map<ManifestEntry.Identifier, ManifestEntry> deletes = new LinkedHashMap<>();
    for (ManifestFileMeta m : small) {
      for (ManifestEntry e : manifestFile.read(m.fileName())) {
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
    entries.sort(
        Comparator.comparing(
            (ManifestEntry e) -> BinaryRows.toBytes(e.partition()), Arrays::compareUnsigned));
    List<ManifestFileMeta> written = manifestFile.write(entries);
    List<ManifestFileMeta> result = new ArrayList<>(written);
    result.addAll(kept);
    return new Result(result, written);
  }
}
