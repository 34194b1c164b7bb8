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

/** The files one or more snapshots use: manifest lists, manifests, and live data files. */
final class TableFiles {

  final Set<String> metadataNames = new HashSet<>();
  final java.util.Map<String, Path> dataPaths = new java.util.HashMap<>();

  /** Adds every file {@code snapshot} needs to be read. */
  void add(FileStore store, Snapshot snapshot) {
    metadataNames.add(snapshot.baseManifestList());
    metadataNames.add(snapshot.deltaManifestList());
    if (snapshot.indexManifest() != null) {
      metadataNames.add(snapshot.indexManifest());
    }
    try {
      for (ManifestFileMeta m : store.newScan().manifests(snapshot)) {
        metadataNames.add(m.fileName());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the manifest lists of snapshot " + snapshot.id(), e);
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
