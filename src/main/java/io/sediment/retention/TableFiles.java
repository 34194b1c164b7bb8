package io.sediment.retention;

import io.sediment.fs.FileIO;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.ManifestFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.TablePaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files that snapshots reference: manifest lists and manifests (under {@code manifest/}), index
 * manifests and deletion-vector files (under {@code index/}), and data files.
 *
 * <p>{@link #ofRetainedSnapshots} is the one answer to "what must not be deleted" for expiry,
 * orphan removal and the compaction job's marker clean-up. A listed snapshot older than the latest
 * whose manifest list, manifest or index manifest is gone is expired (an expiration retired it, or
 * an older version's expiration was interrupted after deleting its metadata) and is skipped; the
 * latest must be readable, and an error names its missing file otherwise. Only a file that does not
 * exist makes a snapshot expired: any other read error is raised, so a transient failure never lets
 * a snapshot's files be taken for unreferenced ones.
 */
public final class TableFiles {

  private static final Logger LOG = LoggerFactory.getLogger(TableFiles.class);

  /** Names under {@code manifest/}: manifest lists and manifests. */
  final Set<String> metadataNames = new HashSet<>();

  /** Names under {@code index/}: index manifests and the deletion-vector files they list. */
  final Set<String> indexNames = new HashSet<>();

  /** Data files by {@link #key} of their path. */
  final Map<String, Path> dataPaths = new HashMap<>();

  private TableFiles() {}

  /**
   * The files the retained, readable snapshots of the table reference: the live data files of each
   * and its metadata. Computed as the live files of the oldest readable snapshot plus the files
   * each later one added (its delta), which is every file any of them has live.
   *
   * @throws IllegalStateException when the latest snapshot cannot be read, naming the missing file
   */
  public static TableFiles ofRetainedSnapshots(FileStore store) {
    return ofRetainedSnapshots(store, Set.of());
  }

  /**
   * The same, leaving out the listed snapshots {@code retiring} (an expiration about to retire
   * them): what stays referenced once they are gone.
   */
  static TableFiles ofRetainedSnapshots(FileStore store, Set<Long> retiring) {
    SnapshotManager sm = store.snapshotManager();
    List<Long> ids = new ArrayList<>(sm.listIds());
    ids.removeAll(retiring);
    Reader reader = new Reader(store);
    TableFiles out = new TableFiles();
    long previous = -1; // id of the last snapshot added, -1 when the one before was skipped
    for (int i = 0; i < ids.size(); i++) {
      long id = ids.get(i);
      boolean latest = i == ids.size() - 1;
      Optional<Snapshot> s = sm.snapshotIfExists(id);
      if (s.isEmpty()) {
        if (latest) {
          throw new IllegalStateException(
              "The latest snapshot file " + store.paths().snapshot(id) + " is gone");
        }
        previous = -1; // retired by an expiration since the listing
        continue;
      }
      SnapshotFiles f = reader.read(Retired.of(s.get()), previous == id - 1);
      if (f.missing != null) {
        if (latest) {
          throw new IllegalStateException(
              "The latest snapshot " + id + " cannot be read: " + f.missing + " does not exist");
        }
        LOG.info("Snapshot {} is expired: {} no longer exists", id, f.missing);
        previous = -1;
        continue;
      }
      out.addAll(f);
      previous = id;
    }
    addStaged(store, reader, out);
    return out;
  }

  /**
   * Adds what staged snapshots reference: a snapshot claimed under the commit lock whose committer
   * stopped before moving it into place is published by the next commit, so its files must stay. A
   * staged file that cannot be read (still being written, or torn) references nothing yet.
   */
  private static void addStaged(FileStore store, Reader reader, TableFiles out) {
    for (Path p : store.snapshotManager().listStaged()) {
      Snapshot s;
      try {
        s = Snapshot.fromJson(store.fileIO().readUtf8(p));
      } catch (IOException | RuntimeException e) {
        continue;
      }
      SnapshotFiles f = reader.read(Retired.of(s), false);
      out.metadataNames.addAll(f.metadata);
      out.indexNames.addAll(f.index);
      out.dataPaths.putAll(f.data);
    }
  }

  /**
   * The files the given snapshots referenced, as far as their metadata is still there: the metadata
   * files they name, and the data and deletion-vector files of each whose manifests (and index
   * manifest) can all be read. Missing files are skipped: {@link RecordedExpiration} deletes data
   * files before the metadata that lists them, so metadata that is gone means the data step of that
   * expiration finished.
   */
  static TableFiles ofRetired(FileStore store, List<Retired> snapshots) {
    Reader reader = new Reader(store);
    TableFiles out = new TableFiles();
    long previous = -1;
    for (Retired r : snapshots) {
      SnapshotFiles f = reader.read(r, previous == r.id() - 1);
      out.metadataNames.addAll(f.metadata);
      out.indexNames.addAll(f.index);
      if (f.dataComplete) {
        out.dataPaths.putAll(f.data);
        previous = r.id();
      } else {
        previous = -1;
      }
    }
    return out;
  }

  /**
   * The first metadata file of {@code snapshot} found missing (manifest list, manifest or index
   * manifest), if any: a snapshot with one is expired, or unreadable when it is the latest.
   */
  public static Optional<Path> missingFile(FileStore store, Snapshot snapshot) {
    return Optional.ofNullable(new Reader(store).read(Retired.of(snapshot), true).missing);
  }

  /** Names under {@code manifest/} referenced: manifest lists and manifests. */
  public Set<String> metadataNames() {
    return Collections.unmodifiableSet(metadataNames);
  }

  /** Whether the data file at {@code path} is referenced. */
  public boolean containsDataFile(Path path) {
    return dataPaths.containsKey(key(path));
  }

  /** Names of the data files referenced (names are unique in a table). */
  public Set<String> dataFileNames() {
    Set<String> names = new HashSet<>();
    for (Path p : dataPaths.values()) {
      names.add(p.getName());
    }
    return names;
  }

  /** Names of the files under {@code index/} referenced: index manifests and deletion vectors. */
  public Set<String> indexFileNames() {
    return Collections.unmodifiableSet(indexNames);
  }

  private void addAll(SnapshotFiles f) {
    metadataNames.addAll(f.metadata);
    indexNames.addAll(f.index);
    dataPaths.putAll(f.data);
  }

  /** A comparable form of a path: its URI path, without scheme or authority. */
  public static String key(Path p) {
    return p.toUri().normalize().getPath();
  }

  /** What locates a snapshot's files; kept in the expiry record once the snapshot file is gone. */
  record Retired(
      long id,
      String baseManifestList,
      String deltaManifestList,
      String indexManifest,
      String changelogManifestList) {
    static Retired of(Snapshot s) {
      return new Retired(
          s.id(),
          s.baseManifestList(),
          s.deltaManifestList(),
          s.indexManifest(),
          s.changelogManifestList());
    }
  }

  /** The files of one snapshot, and the first one found missing. */
  private static final class SnapshotFiles {
    final List<String> metadata = new ArrayList<>();
    final List<String> index = new ArrayList<>();
    final Map<String, Path> data = new HashMap<>();
    Path missing;
    boolean dataComplete;
  }

  /**
   * Reads snapshots' metadata, remembering what exists and the index manifests read: consecutive
   * snapshots share most manifests and often their index manifest.
   */
  private static final class Reader {
    private final FileStore store;
    private final FileIO io;
    private final TablePaths paths;
    private final Map<String, Boolean> exists = new HashMap<>();
    private final Map<String, List<IndexManifest.Entry>> indexManifests = new HashMap<>();

    Reader(FileStore store) {
      this.store = store;
      this.io = store.fileIO();
      this.paths = store.paths();
    }

    /**
     * The files of a snapshot. Data files: those the delta added when {@code deltaOnly} (the
     * snapshot before was read, so it had the rest), else every live file.
     */
    SnapshotFiles read(Retired s, boolean deltaOnly) {
      SnapshotFiles f = new SnapshotFiles();
      f.metadata.add(s.baseManifestList());
      f.metadata.add(s.deltaManifestList());
      List<ManifestFileMeta> base = readList(s.baseManifestList(), f);
      List<ManifestFileMeta> delta = readList(s.deltaManifestList(), f);
      if (s.indexManifest() != null) {
        f.index.add(s.indexManifest());
        List<IndexManifest.Entry> vectors = readIndex(s.indexManifest(), f);
        if (vectors != null) {
          for (IndexManifest.Entry e : vectors) {
            f.index.add(e.deletionFile().dvFile());
          }
        }
      }
      if (base == null || delta == null) {
        return f;
      }
      // Changelog files belong to their snapshot only (never carried to the next one).
      List<ManifestFileMeta> changelog = List.of();
      if (s.changelogManifestList() != null) {
        f.metadata.add(s.changelogManifestList());
        changelog = readList(s.changelogManifestList(), f);
        if (changelog == null) {
          return f;
        }
        for (ManifestFileMeta m : changelog) {
          f.metadata.add(m.fileName());
        }
      }
      for (ManifestFileMeta m : base) {
        f.metadata.add(m.fileName());
        if (f.missing == null && !exists(paths.manifest(m.fileName()))) {
          f.missing = paths.manifest(m.fileName());
        }
      }
      for (ManifestFileMeta m : delta) {
        f.metadata.add(m.fileName());
      }
      if (f.missing != null) {
        return f;
      }
      Map<ManifestEntry.Identifier, ManifestEntry> live = new LinkedHashMap<>();
      Set<ManifestEntry.Identifier> deleted = new HashSet<>();
      List<ManifestFileMeta> toRead = new ArrayList<>(delta);
      if (!deltaOnly) {
        toRead.addAll(0, base);
      }
      for (ManifestFileMeta m : toRead) {
        List<ManifestEntry> entries = readManifest(m, f);
        if (entries == null) {
          return f;
        }
        for (ManifestEntry e : entries) {
          if (e.kind() == FileKind.ADD) {
            live.put(e.identifier(), e);
          } else {
            deleted.add(e.identifier());
          }
        }
      }
      if (!deltaOnly) {
        live.keySet().removeAll(deleted);
      }
      for (ManifestEntry e : live.values()) {
        Path p = store.dataFilePath(e.partition(), e.bucket(), e.file().fileName());
        f.data.put(key(p), p);
      }
      for (ManifestFileMeta m : changelog) {
        List<ManifestEntry> entries = readManifest(m, f);
        if (entries == null) {
          return f;
        }
        for (ManifestEntry e : entries) {
          Path p = store.dataFilePath(e.partition(), e.bucket(), e.file().fileName());
          f.data.put(key(p), p);
        }
      }
      f.dataComplete = f.missing == null;
      return f;
    }

    // A snapshot is known to be expired (or half expired by an older version) by a file that is
    // gone: a cached list or manifest is used only once its file is seen to exist.
    private List<ManifestFileMeta> readList(String name, SnapshotFiles f) {
      try {
        return store.manifestList().readExisting(name);
      } catch (IOException e) {
        return missingOrThrow(paths.manifest(name), f, e);
      }
    }

    private List<ManifestEntry> readManifest(ManifestFileMeta manifest, SnapshotFiles f) {
      try {
        return store.manifestFile().readExisting(manifest);
      } catch (IOException e) {
        return missingOrThrow(paths.manifest(manifest.fileName()), f, e);
      }
    }

    private List<IndexManifest.Entry> readIndex(String name, SnapshotFiles f) {
      List<IndexManifest.Entry> cached = indexManifests.get(name);
      if (cached != null) {
        return cached;
      }
      try {
        List<IndexManifest.Entry> entries = new IndexManifest(io, paths).read(name);
        indexManifests.put(name, entries);
        return entries;
      } catch (IOException e) {
        return missingOrThrow(paths.index(name), f, e);
      }
    }

    /**
     * A read failed: null when the file does not exist (recorded in {@code f}), else throws. Asks
     * the file system again: a concurrent expiration may have deleted it since it was checked.
     */
    private <T> T missingOrThrow(Path file, SnapshotFiles f, IOException e) {
      boolean present;
      try {
        present = io.exists(file);
      } catch (IOException check) {
        e.addSuppressed(check);
        present = true;
      }
      exists.put(key(file), present);
      if (present) {
        throw new UncheckedIOException("Cannot read " + file, e);
      }
      if (f.missing == null) {
        f.missing = file;
      }
      return null;
    }

    private boolean exists(Path file) {
      return exists.computeIfAbsent(
          key(file),
          k -> {
            try {
              return io.exists(file);
            } catch (IOException e) {
              throw new UncheckedIOException("Cannot check whether " + file + " exists", e);
            }
          });
    }
  }
}
