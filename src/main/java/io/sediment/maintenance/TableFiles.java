package io.sediment.maintenance;

import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.ManifestFileMeta;
import io.sediment.manifest.Snapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.flink.core.fs.Path;

/**
 * The files one or more snapshots use: manifest lists, manifests, index manifests and
 * deletion-vector files, and live data files.
 */
final class TableFiles {

  final Set<String> metadataNames = new HashSet<>();

  /** Files under {@code index/}: index manifests and the deletion-vector files they list. */
  final Set<String> indexNames = new HashSet<>();

  final java.util.Map<String, Path> dataPaths = new java.util.HashMap<>();

  /** Adds every file {@code snapshot} needs to be read. */
  void add(FileStore store, Snapshot snapshot) {
    metadataNames.add(snapshot.baseManifestList());
    metadataNames.add(snapshot.deltaManifestList());
    try {
      if (snapshot.indexManifest() != null) {
        indexNames.add(snapshot.indexManifest());
        for (io.sediment.manifest.IndexManifest.Entry e :
            new io.sediment.manifest.IndexManifest(store.fileIO(), store.paths())
                .read(snapshot.indexManifest())) {
          indexNames.add(e.deletionFile().dvFile());
        }
      }
      for (ManifestFileMeta m : store.newScan().manifests(snapshot)) {
        metadataNames.add(m.fileName());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the manifest lists of snapshot " + snapshot.id(), e);
    }
    for (ManifestEntry e : store.newScan().plan(snapshot)) {
      Path p = store.dataFilePath(e.partition(), e.bucket(), e.file().fileName());
      dataPaths.put(key(p), p);
    }
  }

  /** A comparable form of a path: its URI path, without scheme or authority. */
  static String key(Path p) {
    return p.toUri().normalize().getPath();
  }
}
