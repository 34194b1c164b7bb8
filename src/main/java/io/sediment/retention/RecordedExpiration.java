package io.sediment.retention;

import io.sediment.fs.FileIO;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestCache;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.TablePaths;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out an expiration through its {@link ExpiryRecord}: reads the metadata of the snapshots
 * it retires and of the oldest one it keeps (so that a manifest it cannot read fails it before
 * anything changed), creates the record, retires the snapshot files (oldest first), deletes the
 * files only they referenced (data and deletion-vector files, then manifests and index manifests,
 * then manifest lists), and deletes the record. Every step skips files already gone, so finishing a
 * record that a failed or killed run left is the same work as carrying out a new one.
 */
final class RecordedExpiration {

  private static final Logger LOG = LoggerFactory.getLogger(RecordedExpiration.class);

  /**
   * A record not marked abandoned is taken for one a killed process left once it is this old; an
   * automatic expiry (limited per commit) takes seconds, a manual one on a large table minutes.
   */
  static final Duration ABANDONED_AFTER = Duration.ofHours(1);

  private final FileStore store;
  private final String tableName;
  private final TablePaths paths;
  private final FileIO io;

  RecordedExpiration(FileStore store, String tableName) {
    this.store = store;
    this.tableName = tableName;
    this.paths = store.paths();
    this.io = store.fileIO();
  }

  /**
   * Finishes the expiration a failed or killed run left, if there is a record: empty when there is
   * none. With {@code skipLive}, a record another run may still be working on (not marked abandoned
   * and younger than {@link #ABANDONED_AFTER}) is left alone and {@link
   * SnapshotExpiration.Result#SKIPPED} returned.
   */
  Optional<SnapshotExpiration.Result> finishUnfinished(boolean skipLive) {
    Optional<ExpiryRecord> unfinished = ExpiryRecord.read(io, paths.expiryRecord());
    if (unfinished.isEmpty()) {
      return Optional.empty();
    }
    if (skipLive && !unfinished.get().isAbandoned() && !olderThanAbandonAge()) {
      return Optional.of(SnapshotExpiration.Result.SKIPPED);
    }
    LOG.info("Finishing an interrupted expiration of {}", tableName);
    return Optional.of(finish(unfinished.get()));
  }

  /** Whether the record was last written longer than {@link #ABANDONED_AFTER} ago. */
  private boolean olderThanAbandonAge() {
    Path file = paths.expiryRecord();
    try {
      long written = io.fs(file).getFileStatus(file).getModificationTime();
      return store.clock().millis() - written > ABANDONED_AFTER.toMillis();
    } catch (FileNotFoundException e) {
      return false; // finished meanwhile
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the age of the expiry record " + file, e);
    }
  }

  /**
   * Reads every manifest the {@code expired} snapshots and the oldest kept one need, before
   * anything changes: throws, naming the file and saying nothing was expired, when one cannot be
   * read.
   */
  Deletions prepare(List<Snapshot> expired, List<Long> listed, TableFiles.Reader reader) {
    try {
      return plan(expired.stream().map(TableFiles.Retired::of).toList(), listed, reader);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "Cannot expire snapshots of "
              + tableName
              + ": "
              + e.getMessage()
              + "; nothing was expired",
          e);
    }
  }

  /**
   * Records the expiration of {@code expired} (oldest first, never the latest), then does it,
   * deleting what {@code planned} ({@link #prepare}) found. Empty, with nothing changed, when
   * another run created its record first.
   */
  Optional<SnapshotExpiration.Result> run(List<Snapshot> expired, Deletions planned) {
    ExpiryRecord record = ExpiryRecord.of(expired.stream().map(TableFiles.Retired::of).toList());
    try {
      if (!record.create(store, paths.expiryRecord())) {
        return Optional.empty();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Could not write the expiry record " + paths.expiryRecord() + "; nothing was expired", e);
    }
    Deletions d;
    try {
      // Tags are read once the record exists: a tag made before it is seen here, and one made
      // after it sees the record (Tags#create) and is refused.
      d = planned.without(taggedFiles(record.retired(), new TableFiles.Reader(store)));
    } catch (RuntimeException e) {
      try {
        IOException undo = isCurrent(record) ? io.deleteQuietly(paths.expiryRecord()) : null;
        if (undo != null) {
          e.addSuppressed(undo);
        }
      } catch (RuntimeException undo) { // left: a later run finishes it once it aged
        e.addSuppressed(undo);
      }
      throw new IllegalStateException(
          "Cannot read the tags of " + tableName + ": " + e.getMessage() + "; nothing was expired",
          e);
    }
    return Optional.of(finish(record, d));
  }

  /** What the tags keep of the files of the snapshots {@code retired} (oldest first). */
  private static TableFiles taggedFiles(
      List<TableFiles.Retired> retired, TableFiles.Reader reader) {
    return TableFiles.ofTagsKeeping(
        reader, retired.get(0).id(), retired.get(retired.size() - 1).id());
  }

  /**
   * Carries out the record. On a failure the record is marked abandoned, so that a later automatic
   * run finishes it at once rather than waiting for it to age.
   */
  private SnapshotExpiration.Result finish(ExpiryRecord record) {
    return finish(record, null);
  }

  private SnapshotExpiration.Result finish(ExpiryRecord record, Deletions planned) {
    try {
      return finishSteps(record, planned);
    } catch (RuntimeException e) {
      try {
        if (isCurrent(record)) { // not another run's record, made after one finished this
          io.overwriteHint(paths.expiryRecord(), record.markedAbandoned().toJson());
        }
      } catch (IOException | RuntimeException mark) {
        e.addSuppressed(mark);
      }
      throw e;
    }
  }

  /**
   * What an expiration deletes after retiring its snapshot files, how many data files, and the
   * snapshot ids listed for the planning (ascending), which the retiring step uses too: one LIST of
   * the snapshot directory per expiration. Ids only grow and the latest is never expired, so that
   * listing's latest is not above today's and its first kept id not too high.
   */
  record Deletions(
      List<Path> dataAndVectors,
      List<Path> manifests,
      List<Path> lists,
      int dataFiles,
      List<Long> listed) {

    /** These deletions without the files {@code kept} references (by name: unique in a table). */
    Deletions without(TableFiles kept) {
      List<Path> data = new ArrayList<>();
      int dataCount = 0;
      for (int i = 0; i < dataAndVectors.size(); i++) {
        Path p = dataAndVectors.get(i);
        String name = p.getName();
        boolean isData = i < dataFiles;
        if (isData ? !kept.dataFiles.containsKey(name) : !kept.indexNames.contains(name)) {
          data.add(p);
          dataCount += isData ? 1 : 0;
        }
      }
      List<Path> m = new ArrayList<>();
      for (Path p : manifests) {
        if (!kept.metadataNames.contains(p.getName()) && !kept.indexNames.contains(p.getName())) {
          m.add(p);
        }
      }
      List<Path> l = new ArrayList<>();
      for (Path p : lists) {
        if (!kept.metadataNames.contains(p.getName())) {
          l.add(p);
        }
      }
      return new Deletions(data, m, l, dataCount, listed);
    }
  }

  /**
   * Reads the metadata of every snapshot the expiration retires and of the oldest one it keeps
   * ({@link TableFiles#keptAfterRetiring}), and returns what only the retired ones reference. Runs
   * before any file is retired or deleted, so a manifest that cannot be read fails the expiration
   * (naming the file) with nothing changed.
   *
   * @param listed the snapshot ids listed, ascending
   * @param reader the planning's reader (files checked once however many snapshots share them)
   */
  private Deletions plan(
      List<TableFiles.Retired> retired, List<Long> listed, TableFiles.Reader reader) {
    Set<Long> ids = new HashSet<>();
    retired.forEach(r -> ids.add(r.id()));
    TableFiles kept = TableFiles.keptAfterRetiring(reader, listed, ids);
    TableFiles gone = TableFiles.ofRetired(reader, retired);
    List<Path> data = new ArrayList<>();
    for (Map.Entry<String, ManifestEntry> e : gone.dataFiles.entrySet()) {
      if (!kept.dataFiles.containsKey(e.getKey())) {
        data.add(TableFiles.path(store, e.getValue()));
      }
    }
    Set<String> indexManifestNames = new HashSet<>();
    Set<String> listNames = new HashSet<>();
    for (TableFiles.Retired r : retired) {
      if (r.indexManifest() != null) {
        indexManifestNames.add(r.indexManifest());
      }
      listNames.add(r.baseManifestList());
      listNames.add(r.deltaManifestList());
      if (r.changelogManifestList() != null) {
        listNames.add(r.changelogManifestList());
      }
    }
    List<Path> vectors = new ArrayList<>();
    List<Path> manifests = new ArrayList<>();
    for (String name : gone.indexNames) {
      if (!kept.indexNames.contains(name)) {
        (indexManifestNames.contains(name) ? manifests : vectors).add(paths.index(name));
      }
    }
    List<Path> lists = new ArrayList<>();
    for (String name : gone.metadataNames) {
      if (!kept.metadataNames.contains(name)) {
        (listNames.contains(name) ? lists : manifests).add(paths.manifest(name));
      }
    }
    List<Path> dataAndVectors = new ArrayList<>(data);
    dataAndVectors.addAll(vectors);
    return new Deletions(dataAndVectors, manifests, lists, data.size(), listed);
  }

  private SnapshotExpiration.Result finishSteps(ExpiryRecord record) {
    return finishSteps(record, null);
  }

  /** Retires the record's snapshots and deletes their files; {@code planned}: read before. */
  private SnapshotExpiration.Result finishSteps(ExpiryRecord record, Deletions planned) {
    List<TableFiles.Retired> retired = record.retired();
    if (retired.isEmpty()) {
      deleteRecord(record);
      return SnapshotExpiration.Result.NONE;
    }
    String range = retired.get(0).id() + ".." + retired.get(retired.size() - 1).id();
    Deletions d = planned;
    if (d == null) {
      TableFiles.Reader reader = new TableFiles.Reader(store);
      List<Long> listed = store.snapshotManager().listIds();
      checkLatestReadable(listed, reader);
      d = plan(retired, listed, reader).without(taggedFiles(retired, reader));
    }
    retireSnapshotFiles(retired, range, d.listed());
    deleteStep(d.dataAndVectors(), range);
    deleteStep(d.manifests(), range);
    deleteStep(d.lists(), range);
    deleteRecord(record);
    int metadata =
        d.dataAndVectors().size() - d.dataFiles() + d.manifests().size() + d.lists().size();
    LOG.info(
        "Expired snapshots {} of {}: {} data file(s), {} metadata file(s) deleted",
        range,
        tableName,
        d.dataFiles(),
        metadata);
    return new SnapshotExpiration.Result(
        retired.stream().map(TableFiles.Retired::id).toList(), d.dataFiles(), metadata, false);
  }

  /**
   * Refuses, naming the missing file, when the latest of the snapshots {@code listed} cannot be
   * read (its snapshot file, a manifest list, manifest or index manifest is gone): an expiration
   * runs, and an unfinished one is finished, only on a table whose latest snapshot is whole.
   */
  void checkLatestReadable(List<Long> listed, TableFiles.Reader reader) {
    if (listed.isEmpty()) {
      return;
    }
    long latest = listed.get(listed.size() - 1);
    Optional<Path> missing =
        reader
            .snapshot(latest)
            .map(s -> TableFiles.missingFile(reader, s))
            .orElse(Optional.of(paths.snapshot(latest)));
    if (missing.isPresent()) {
      throw new IllegalStateException(
          "The latest snapshot "
              + latest
              + " of "
              + tableName
              + " cannot be read: "
              + missing.get()
              + " does not exist; nothing was expired");
    }
  }

  /**
   * Deletes the snapshot files, oldest first, then points the EARLIEST hint at the first left: the
   * first id of one listing, made before, that is not retired (a snapshot that is gone since makes
   * the hint low, never high, and the next expiry moves it up).
   */
  private void retireSnapshotFiles(
      List<TableFiles.Retired> retired, String range, List<Long> listed) {
    long latest = listed.isEmpty() ? Long.MIN_VALUE : listed.get(listed.size() - 1);
    Set<Long> ids = new HashSet<>();
    for (TableFiles.Retired r : retired) {
      ids.add(r.id());
      if (r.id() >= latest) {
        throw new IllegalStateException(
            "The expiry record "
                + paths.expiryRecord()
                + " names snapshot "
                + r.id()
                + ", but the latest snapshot is "
                + latest
                + " and is never expired; nothing was deleted");
      }
    }
    for (TableFiles.Retired r : retired) {
      IOException e = io.deleteQuietly(paths.snapshot(r.id()));
      if (e != null) {
        throw new UncheckedIOException(
            "Could not delete the snapshot file "
                + paths.snapshot(r.id())
                + " while expiring snapshots "
                + range
                + " of "
                + tableName
                + "; run the expiration again to finish it",
            e);
      }
    }
    Optional<Long> firstLeft = listed.stream().filter(id -> !ids.contains(id)).findFirst();
    if (firstLeft.isPresent()) {
      try {
        io.overwriteHint(new Path(paths.snapshotDir(), "EARLIEST"), Long.toString(firstLeft.get()));
      } catch (IOException | RuntimeException e) {
        LOG.warn("Could not update the EARLIEST hint of {}", tableName, e);
      }
    }
  }

  /** Deletes one step's files; on any failure stops here, leaving the record for a rerun. */
  private void deleteStep(List<Path> files, String range) {
    List<IOException> errors = io.deleteAll(files);
    ManifestCache.forget(files); // lists and manifests gone (or going): their cached entries too
    if (!errors.isEmpty()) {
      IOException e =
          new IOException(
              "Could not delete "
                  + errors.size()
                  + " file(s) of the expired snapshots "
                  + range
                  + " of "
                  + tableName
                  + "; the snapshots are expired, run the expiration again to delete the rest");
      errors.forEach(e::addSuppressed);
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Whether the expiry record names {@code record}'s snapshots: a run that failed, or finished,
   * changes the record only then, since a run that finished the same record meanwhile (a manual run
   * finishes any) may have started the next expiration, whose record it must not drop or mark. The
   * check and the change are two steps, so this narrows the race to between them; it does not close
   * it.
   */
  private boolean isCurrent(ExpiryRecord record) {
    Optional<ExpiryRecord> current = ExpiryRecord.read(io, paths.expiryRecord());
    return current.isPresent() && current.get().snapshots().equals(record.snapshots());
  }

  /**
   * Deletes the record, unless it names other snapshots by now: a concurrent run that finished the
   * same record may have started the next expiration already.
   */
  private void deleteRecord(ExpiryRecord finished) {
    if (!isCurrent(finished)) {
      return;
    }
    IOException e = io.deleteQuietly(paths.expiryRecord());
    if (e != null) {
      throw new UncheckedIOException(
          "Could not delete the expiry record "
              + paths.expiryRecord()
              + " of "
              + tableName
              + "; every file of the expiration is deleted, the next run removes it",
          e);
    }
  }
}
