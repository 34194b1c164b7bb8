package io.sediment.retention;

import io.sediment.fs.FileIO;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.ManifestFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.TablePaths;
import io.sediment.manifest.TagManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
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
 * <p>{@link #ofRetainedSnapshots} is the answer to "what must not be deleted" for orphan removal
 * and the compaction job's marker clean-up; expiry, which starts from the snapshots it retires,
 * needs only the oldest snapshot it keeps ({@link #keptAfterRetiring}). A listed snapshot older
 * than the latest whose manifest list, manifest or index manifest is gone is expired (an expiration
 * retired it, or an older version's expiration was interrupted after deleting its metadata) and is
 * skipped; the latest must be readable, and an error names its missing file otherwise. Only a file
 * that does not exist makes a snapshot expired: any other read error is raised, so a transient
 * failure never lets a snapshot's files be taken for unreferenced ones.
 */
public final class TableFiles {

  private static final Logger LOG = LoggerFactory.getLogger(TableFiles.class);

  /** Names under {@code manifest/}: manifest lists and manifests. */
  final Set<String> metadataNames = new HashSet<>();

  /** Names under {@code index/}: index manifests and the deletion-vector files they list. */
  final Set<String> indexNames = new HashSet<>();

  /**
   * Data and changelog files by name (names are unique in a table), with the entry that locates
   * each: a path is made only for a file to delete, not for every file compared.
   */
  final Map<String, ManifestEntry> dataFiles = new HashMap<>();

  private TableFiles() {}

  /**
   * The files the retained, readable snapshots of the table reference: the live data files of each
   * and its metadata. Computed as the live files of the oldest readable snapshot plus the files
   * each later one added (its delta), which is every file any of them has live.
   *
   * @throws IllegalStateException when the latest snapshot cannot be read, naming the missing file
   */
  public static TableFiles ofRetainedSnapshots(FileStore store) {
    Reader reader = new Reader(store);
    // Staged snapshots read before the ids are listed too: one rolled forward meanwhile (target
    // written, then the staged file deleted) is then seen staged here or listed below, never
    // neither, and the files it publishes are never taken for orphans.
    Map<String, Snapshot> stagedBefore = readStaged(store, Set.of());
    TableFiles out =
        collect(reader, store.snapshotManager().listIds(), Long.MAX_VALUE, stagedBefore.keySet());
    stagedBefore.values().forEach(s -> out.addAll(reader.read(Retired.of(s), false)));
    addTags(reader, out, tags(store).values());
    return out;
  }

  /**
   * What stays referenced, of what the snapshots {@code retiring} reference, once they are gone:
   * the files of the oldest readable snapshot newer than all of them (and of any readable one older
   * than that which is not retiring, normally none), and of staged snapshots. Enough, because a
   * file is referenced by one unbroken range of snapshots: a commit adds only files it wrote, lands
   * once (the exactly-once check of commit users), and builds its manifest lists and index manifest
   * from its parent's, so a file that a retiring snapshot and a later one both reference is
   * referenced by every snapshot between them (docs/spec.md section 4.4; asserted over the
   * histories of ExpirationModelTest). Paimon's expiry relies on the same. Reads one kept
   * snapshot's metadata instead of every kept one's: on an object store, a GET of each snapshot
   * file and a HEAD of each of its lists and manifests fewer per kept snapshot. The latest snapshot
   * is not read unless it is the first kept one: the caller checks that it is readable. Tags are
   * not read here: an expiration reads them once it holds its record ({@link #ofTagsKeeping}).
   *
   * @param listed the snapshot ids listed, ascending
   */
  static TableFiles keptAfterRetiring(Reader reader, List<Long> listed, Set<Long> retiring) {
    long newestRetiring = retiring.stream().mapToLong(Long::longValue).max().orElse(-1);
    List<Long> ids = new ArrayList<>(listed);
    ids.removeAll(retiring);
    return collect(reader, ids, newestRetiring, Set.of());
  }

  /**
   * What the tags keep of the files of the snapshots {@code oldest..newest} that an expiration
   * retires: the files of each tag of one of them, and of the newest readable tag older than all of
   * them. Older tags need not be read: a file an older tag and a retired snapshot both reference is
   * referenced by every snapshot made between them (the rule of {@link #keptAfterRetiring}), the
   * newer tag's included. One LIST of {@code tag/}; each tag file is read once per process.
   */
  static TableFiles ofTagsKeeping(Reader reader, long oldest, long newest) {
    TableFiles out = new TableFiles();
    List<TagManager.Tag> within = new ArrayList<>();
    List<TagManager.Tag> older = new ArrayList<>();
    for (TagManager.Tag tag : tags(reader.store).values()) {
      long id = tag.snapshot().id();
      if (id >= oldest && id <= newest) {
        within.add(tag);
      } else if (id < oldest) {
        older.add(tag);
      }
    }
    addTags(reader, out, within);
    older.sort((a, b) -> Long.compare(b.snapshot().id(), a.snapshot().id()));
    for (TagManager.Tag tag : older) {
      if (addTags(reader, out, List.of(tag)) == 1) {
        break;
      }
    }
    return out;
  }

  private static Map<String, TagManager.Tag> tags(FileStore store) {
    return new TagManager(store.fileIO(), store.paths()).all();
  }

  /**
   * Adds the files of {@code tags}: each tag's snapshot's live data files and metadata. A tag whose
   * manifest list, manifest or index manifest does not exist cannot be read whatever is kept (it
   * was deleted meanwhile, or its creation was interrupted while an expiration retired its
   * snapshot): it is skipped, with a warning. Returns how many tags were added.
   */
  private static int addTags(Reader reader, TableFiles out, Collection<TagManager.Tag> tags) {
    int added = 0;
    for (TagManager.Tag tag : tags) {
      SnapshotFiles f = reader.read(Retired.of(tag.snapshot()), false);
      if (f.missing != null) {
        LOG.warn(
            "Tag '{}' (snapshot {}) of {} cannot be read: {} does not exist; it keeps no files"
                + " (delete it with CALL sys.delete_tag)",
            tag.name(),
            tag.snapshot().id(),
            reader.store.paths().root(),
            f.missing);
        continue;
      }
      out.addAll(f);
      added++;
    }
    return added;
  }

  /**
   * The files the tags {@code deleted} referenced that nothing else does: not the oldest readable
   * snapshot newer than all of them, not another tag, not a staged snapshot. A tag of a snapshot
   * still there has none (its snapshot keeps them; the expiration that retires it deletes them).
   * Safe while others commit, expire and tag: a file of an older snapshot that the oldest readable
   * one does not reference is referenced by no later snapshot (one unbroken range, see {@link
   * #keptAfterRetiring}), and a new tag is made only of a snapshot that is still there.
   */
  static TableFiles onlyTagged(Reader reader, List<TagManager.Tag> deleted, List<Long> listed) {
    TableFiles gone = new TableFiles();
    long oldestListed = listed.isEmpty() ? Long.MAX_VALUE : listed.get(0);
    long newest = -1;
    for (TagManager.Tag t : deleted) {
      if (t.snapshot().id() >= oldestListed) {
        continue; // its snapshot is there (or expiring, and its expiration keeps what it needs)
      }
      SnapshotFiles f = reader.read(Retired.of(t.snapshot()), false);
      gone.metadataNames.addAll(f.metadata);
      gone.indexNames.addAll(f.index);
      if (f.dataComplete) {
        gone.dataFiles.putAll(f.data);
      }
      newest = Math.max(newest, t.snapshot().id());
    }
    if (newest < 0) {
      return gone;
    }
    TableFiles kept = collect(reader, listed, newest, Set.of());
    addTags(reader, kept, tags(reader.store).values());
    gone.metadataNames.removeAll(kept.metadataNames);
    gone.indexNames.removeAll(kept.indexNames);
    gone.dataFiles.keySet().removeAll(kept.dataFiles.keySet());
    return gone;
  }

  /**
   * The files of the readable snapshots {@code ids} (ascending) and of staged ones, stopping after
   * the first readable snapshot newer than {@code stopAfterOneAbove}: the live files of each
   * snapshot read after an unreadable one (or first), the delta of each that follows one read.
   * Staged ones are listed after the ids (one staged since they were listed is seen); those named
   * in {@code stagedRead} the caller read already.
   */
  private static TableFiles collect(
      Reader reader, List<Long> ids, long stopAfterOneAbove, Set<String> stagedRead) {
    FileStore store = reader.store;
    TableFiles out = new TableFiles();
    long previous = -1; // id of the last snapshot added, -1 when the one before was skipped
    for (int i = 0; i < ids.size(); i++) {
      long id = ids.get(i);
      boolean latest = i == ids.size() - 1;
      Optional<Snapshot> s = reader.snapshot(id);
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
      if (id > stopAfterOneAbove) {
        break;
      }
    }
    readStaged(store, stagedRead)
        .values()
        .forEach(s -> out.addAll(reader.read(Retired.of(s), false)));
    return out;
  }

  /**
   * The staged snapshots that can be read now, by file name, but those {@code read} already: a
   * snapshot claimed under the commit lock whose committer stopped before moving it into place is
   * published by the next commit, so its files must stay. A staged file that cannot be read (still
   * being written, torn, or rolled forward since it was listed) references nothing yet.
   */
  private static Map<String, Snapshot> readStaged(FileStore store, Set<String> read) {
    Map<String, Snapshot> out = new LinkedHashMap<>();
    for (Path p : store.snapshotManager().listStaged()) {
      if (read.contains(p.getName())) {
        continue;
      }
      try {
        out.put(p.getName(), Snapshot.fromJson(store.fileIO().readUtf8(p)));
      } catch (IOException | RuntimeException e) {
        // not readable (yet), or gone
      }
    }
    return out;
  }

  /**
   * The files the given snapshots referenced, as far as their metadata is still there: the metadata
   * files they name, and the data and deletion-vector files of each whose manifests (and index
   * manifest) can all be read. Missing files are skipped: {@link RecordedExpiration} deletes data
   * files before the metadata that lists them, so metadata that is gone means the data step of that
   * expiration finished.
   */
  static TableFiles ofRetired(Reader reader, List<Retired> snapshots) {
    TableFiles out = new TableFiles();
    long previous = -1;
    for (Retired r : snapshots) {
      SnapshotFiles f = reader.read(r, previous == r.id() - 1);
      out.metadataNames.addAll(f.metadata);
      out.indexNames.addAll(f.index);
      if (f.dataComplete) {
        out.dataFiles.putAll(f.data);
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
  static Optional<Path> missingFile(Reader reader, Snapshot snapshot) {
    return Optional.ofNullable(reader.read(Retired.of(snapshot), true).missing);
  }

  /**
   * The first metadata file of {@code snapshot} found missing (manifest list, manifest or index
   * manifest), if any: such a snapshot cannot be read, nor kept by a tag.
   */
  public static Optional<Path> missingFileOf(FileStore store, Snapshot snapshot) {
    return missingFile(new Reader(store), snapshot);
  }

  /** Names under {@code manifest/} referenced: manifest lists and manifests. */
  public Set<String> metadataNames() {
    return Collections.unmodifiableSet(metadataNames);
  }

  /** Whether the data file at {@code path} is referenced (by its name: unique in a table). */
  public boolean containsDataFile(Path path) {
    return dataFiles.containsKey(path.getName());
  }

  /** Names of the data files referenced (names are unique in a table). */
  public Set<String> dataFileNames() {
    return Collections.unmodifiableSet(dataFiles.keySet());
  }

  /** The path of a referenced data or changelog file. */
  static Path path(FileStore store, ManifestEntry file) {
    return store.dataFilePath(file.partition(), file.bucket(), file.file().fileName());
  }

  /** Names of the files under {@code index/} referenced: index manifests and deletion vectors. */
  public Set<String> indexFileNames() {
    return Collections.unmodifiableSet(indexNames);
  }

  private void addAll(SnapshotFiles f) {
    metadataNames.addAll(f.metadata);
    indexNames.addAll(f.index);
    dataFiles.putAll(f.data);
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

  /** Reads a list or manifest (through the manifest cache). */
  @FunctionalInterface
  private interface MetadataRead<T> {
    List<T> read() throws IOException;
  }

  /** The files of one snapshot, and the first one found missing. */
  private static final class SnapshotFiles {
    final List<String> metadata = new ArrayList<>();
    final List<String> index = new ArrayList<>();
    final Map<String, ManifestEntry> data = new HashMap<>();
    Path missing;
    boolean dataComplete;
  }

  /**
   * Reads snapshots' metadata in one pass over a table (an expiration's planning, an orphan
   * removal), remembering what exists and the index manifests read: snapshots share most manifests
   * and often their index manifest, so each file is checked once in a pass.
   */
  static final class Reader {
    private final FileStore store;
    private final FileIO io;
    private final TablePaths paths;
    private final Map<String, Boolean> exists = new HashMap<>();
    private final Map<String, List<IndexManifest.Entry>> indexManifests = new HashMap<>();
    private final Map<Long, Optional<Snapshot>> snapshots = new HashMap<>();

    /**
     * Snapshot {@code id}, or empty when its file does not exist; read once in a pass (snapshot
     * files never change, and one gone stays gone).
     */
    Optional<Snapshot> snapshot(long id) {
      return snapshots.computeIfAbsent(id, store.snapshotManager()::snapshotIfExists);
    }

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
      if (s.changelogManifestList() != null) {
        // named whatever else is gone: an expiration deletes it beside the base and delta lists,
        // and one that stopped among them must find it when it is finished
        f.metadata.add(s.changelogManifestList());
      }
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
        // read below unless deltaOnly: the read finds it missing then
        if (deltaOnly && f.missing == null && !exists(paths.manifest(m.fileName()))) {
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
        f.data.put(e.file().fileName(), e);
      }
      for (ManifestFileMeta m : changelog) {
        List<ManifestEntry> entries = readManifest(m, f);
        if (entries == null) {
          return f;
        }
        for (ManifestEntry e : entries) {
          f.data.put(e.file().fileName(), e);
        }
      }
      f.dataComplete = f.missing == null;
      return f;
    }

    // A snapshot is known to be expired (or half expired by an older version) by a file that is
    // gone: a cached list or manifest is used only once its file is seen to exist, which is asked
    // once per file in a pass (snapshots share most of their manifests).
    private List<ManifestFileMeta> readList(String name, SnapshotFiles f) {
      return readChecked(
          paths.manifest(name),
          f,
          () -> store.manifestList().read(name),
          () -> store.manifestList().readExisting(name));
    }

    private List<ManifestEntry> readManifest(ManifestFileMeta manifest, SnapshotFiles f) {
      return readChecked(
          paths.manifest(manifest.fileName()),
          f,
          () -> store.manifestFile().read(manifest),
          () -> store.manifestFile().readExisting(manifest));
    }

    /**
     * A read of a cached metadata file: {@code read} once it is seen to exist, else {@code
     * checked}.
     */
    private <T> List<T> readChecked(
        Path file, SnapshotFiles f, MetadataRead<T> read, MetadataRead<T> checked) {
      try {
        List<T> content = seenToExist(file) ? read.read() : checked.read();
        exists.put(key(file), true);
        return content;
      } catch (IOException e) {
        return missingOrThrow(file, f, e);
      }
    }

    private boolean seenToExist(Path file) {
      return Boolean.TRUE.equals(exists.get(key(file)));
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
