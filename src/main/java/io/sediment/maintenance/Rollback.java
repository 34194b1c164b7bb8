package io.sediment.maintenance;

import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.commit.CommitUsers;
import io.sediment.commit.FileStoreCommit;
import io.sediment.commit.SnapshotCommits;
import io.sediment.io.DataFileFactory;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.SnapshotWatermarks;
import io.sediment.manifest.TagManager;
import io.sediment.mergetree.DeletionVectors;
import io.sediment.retention.TableFiles;
import io.sediment.table.Table;
import io.sediment.table.TableScan;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rolls a table back to an earlier snapshot or a tag ({@code CALL sys.rollback_to} and {@code
 * sys.rollback_to_timestamp}, Paimon's procedures): one new OVERWRITE snapshot whose files, and
 * their deletion vectors, are those of the target, so that the latest snapshot reads exactly the
 * target's rows.
 *
 * <p>Unlike Paimon, no snapshot or tag is deleted: the snapshots after the target stay readable
 * (until expiry retires them as any others), so a rollback can itself be rolled back. The new
 * snapshot keeps every file the target and the latest snapshot share with the same deletion vector,
 * removes the latest's other files, and adds the target's other files as copies under new names,
 * with the target's vectors in one new deletion-vector file. Copies, because expiry and tag
 * deletion rely on every file name being live over one unbroken range of snapshots (docs/spec.md
 * section 4.4): a file a later snapshot removed must never be referenced again. A rollback of the
 * last few appends copies nothing.
 *
 * <p>The new snapshot must directly follow the latest snapshot the rollback planned on; when
 * another commit lands first, the rollback is planned again on the new latest snapshot, reusing its
 * copies, up to {@link #ATTEMPTS} times, and deletes them when it commits nothing. Stop the jobs
 * that write the table first, as with Paimon: a streaming read skips the OVERWRITE snapshot, and a
 * writer that keeps running writes on top of the restored rows.
 */
public final class Rollback {

  private static final Logger LOG = LoggerFactory.getLogger(Rollback.class);

  /** How many times a rollback is planned when other commits keep landing. */
  static final int ATTEMPTS = 3;

  /**
   * What a rollback did: the latest snapshot before it, the target, the new snapshot (empty when
   * the latest snapshot already held exactly the target's files, or is a rollback to the target
   * with nothing committed after it), and the data files it removed from the latest snapshot and
   * copied from the target.
   */
  public record Result(
      long previousSnapshotId,
      long targetSnapshotId,
      OptionalLong newSnapshotId,
      int filesRemoved,
      int filesCopied) {}

  private final Table table;
  private final FileStore store;
  private final SnapshotManager snapshots;

  public Rollback(Table table) {
    this.table = table;
    this.store = table.store();
    this.snapshots = table.snapshotManager();
  }

  /**
   * Rolls back to snapshot {@code id}.
   *
   * @throws IllegalArgumentException when it is not there or cannot be read (expired), naming the
   *     snapshots there are; nothing is changed then
   */
  public Result toSnapshot(long id) {
    return to(Tags.readableSnapshot(table, OptionalLong.of(id), "roll back to"), "snapshot " + id);
  }

  /**
   * Rolls back to the snapshot tag {@code name} keeps.
   *
   * @throws IllegalArgumentException when the table has no such tag (naming those it has) or the
   *     tag cannot be read; nothing is changed then
   */
  public Result toTag(String name) {
    Tags.checkName(name);
    TagManager tags = new TagManager(store.fileIO(), store.paths());
    Optional<TagManager.Tag> tag;
    try {
      tag = tags.get(name);
    } catch (UncheckedIOException e) {
      throw new IllegalArgumentException(
          "Tag '" + name + "' of " + table.fullName() + " cannot be read: " + e.getMessage(), e);
    }
    if (tag.isEmpty()) {
      throw Tags.noTag(table, name, tags.names());
    }
    Snapshot s = tag.get().snapshot();
    Optional<Path> missing = TableFiles.missingFileOf(store, s);
    if (missing.isPresent()) {
      throw new IllegalArgumentException(
          "Tag '"
              + name
              + "' of "
              + table.fullName()
              + " cannot be read: "
              + missing.get()
              + " does not exist");
    }
    return to(s, "tag '" + name + "' (snapshot " + s.id() + ")");
  }

  /**
   * Rolls back to the newest snapshot committed at or before {@code millis} (epoch milliseconds),
   * as Paimon's {@code rollback_to_timestamp}.
   *
   * @throws IllegalArgumentException when no snapshot still there was committed that early, naming
   *     the earliest one's time; nothing is changed then
   */
  public Result toTimestamp(long millis) {
    Optional<Snapshot> s = TableScan.atOrBefore(snapshots, millis);
    if (s.isEmpty()) {
      OptionalLong earliest = snapshots.earliestId();
      throw new IllegalArgumentException(
          "No snapshot of "
              + table.fullName()
              + " still there was committed at or before "
              + Instant.ofEpochMilli(millis)
              + " ("
              + millis
              + "); "
              + (earliest.isEmpty()
                  ? "it has no snapshot yet"
                  : "the earliest, "
                      + earliest.getAsLong()
                      + ", was committed "
                      + snapshots
                          .snapshotIfExists(earliest.getAsLong())
                          .map(e -> Instant.ofEpochMilli(e.timeMillis()).toString())
                          .orElse("earlier (it is expiring)")));
    }
    return toSnapshot(s.get().id());
  }

  /**
   * Rolls back to the newest snapshot whose watermark is at most {@code watermark}, as Paimon's
   * {@code rollback_to_watermark}. The new snapshot keeps the latest watermark (watermarks never go
   * back along snapshot ids; spec 4.6).
   *
   * @throws IllegalArgumentException when no snapshot still there has so early a watermark, naming
   *     the watermarks there are; nothing is changed then
   */
  public Result toWatermark(long watermark) {
    Optional<Snapshot> s = SnapshotWatermarks.latestAtOrBefore(snapshots, watermark);
    if (s.isEmpty()) {
      throw new IllegalArgumentException(
          "No snapshot of "
              + table.fullName()
              + " still there has a watermark at or before "
              + watermark
              + "; "
              + SnapshotWatermarks.describe(snapshots));
    }
    return toSnapshot(s.get().id());
  }

  private Result to(Snapshot target, String what) {
    SnapshotCommits.checkCommitSafe(store); // before anything is copied: an object store's lock
    FileStoreCommit commit =
        new FileStoreCommit(store, commitUserPrefix(target) + CommitUsers.random());
    Copies copies = new Copies();
    try {
      CommitConflictException lastRace = null;
      for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
        Snapshot latest =
            snapshots
                .latest()
                .orElseThrow(
                    () -> new IllegalStateException(table.fullName() + " has no snapshot"));
        if (latest.commitKind() == CommitKind.OVERWRITE
            && latest.commitUser().startsWith(commitUserPrefix(target))) {
          LOG.info("The latest snapshot of {} is a rollback to {} already", table.fullName(), what);
          copies.delete(store);
          return new Result(latest.id(), target.id(), OptionalLong.empty(), 0, 0);
        }
        List<CommitMessage> messages = plan(target, latest, copies);
        if (messages.isEmpty()) {
          LOG.info(
              "{} already holds the files of {}; nothing to roll back", table.fullName(), what);
          copies.delete(store);
          return new Result(latest.id(), target.id(), OptionalLong.empty(), 0, 0);
        }
        int removed = messages.stream().mapToInt(m -> m.compactBefore().size()).sum();
        int copied = messages.stream().mapToInt(m -> m.compactAfter().size()).sum();
        try {
          long id = commit.rollback(messages, latest.id());
          LOG.info(
              "Rolled {} back to {}: snapshot {} ({} file(s) removed, {} copied)",
              table.fullName(),
              what,
              id,
              removed,
              copied);
          copies.deleteUnused(store, messages);
          return new Result(latest.id(), target.id(), OptionalLong.of(id), removed, copied);
        } catch (CommitConflictException e) {
          if (snapshots.latestId().orElse(0L) == latest.id()) {
            throw e; // not another commit landing first: a conflict of the rollback's own
          }
          // the copies made stay: the target's files the next latest lacks only grow
          LOG.info(
              "Rollback of {} to {}: {}; planning again", table.fullName(), what, e.getMessage());
          lastRace = e;
        }
      }
      throw new IllegalStateException(
          "Could not roll back "
              + table.fullName()
              + " to "
              + what
              + ": other commits kept landing ("
              + ATTEMPTS
              + " attempts); stop the jobs that write the table and run it again. Nothing was"
              + " changed",
          lastRace);
    } catch (RuntimeException e) {
      if (!FileStoreCommit.filesMayBeReferenced(e)) {
        copies.delete(store).forEach(e::addSuppressed); // nothing of the rollback landed
      }
      throw e;
    }
  }

  /**
   * How the commit user of a rollback to {@code target} starts ({@code rollback-to-<id>-}, then a
   * random part): a rerun of a rollback that landed finds it in the latest snapshot and does not
   * copy the same files again.
   */
  static String commitUserPrefix(Snapshot target) {
    return "rollback-to-" + target.id() + "-";
  }

  /**
   * The copies a rollback made of the target's files, by the file they copy, with their deletion
   * vectors: kept across its attempts (a file the latest snapshot lacks stays lacking), and deleted
   * when it commits nothing.
   */
  private static final class Copies {
    final Map<String, DataFileMeta> files = new LinkedHashMap<>();
    final Map<String, DeletionFile> vectors = new LinkedHashMap<>(); // by the copy's name
    final List<Path> written = new ArrayList<>();

    /** Deletes every file written; returns the failures. */
    List<IOException> delete(FileStore store) {
      List<IOException> failed = store.fileIO().deleteAll(written);
      written.clear();
      files.clear();
      vectors.clear();
      return failed;
    }

    /** After a commit: deletes the copies an earlier attempt made that this one did not need. */
    void deleteUnused(FileStore store, List<CommitMessage> committed) {
      Set<String> used = new HashSet<>();
      for (CommitMessage m : committed) {
        m.compactAfter().forEach(f -> used.add(f.fileName()));
        m.deletionFiles().forEach(d -> used.add(d.dvFile()));
      }
      List<Path> unused = written.stream().filter(p -> !used.contains(p.getName())).toList();
      if (!unused.isEmpty()) {
        store.fileIO().deleteAll(unused);
      }
    }
  }

  /** One bucket's part of a rollback. */
  private static final class BucketChange {
    final BinaryRowData partition;
    final int bucket;
    final int totalBuckets;
    final List<DataFileMeta> removed = new ArrayList<>();
    final List<DataFileMeta> copied = new ArrayList<>();
    final List<DeletionFile> vectors = new ArrayList<>();

    BucketChange(ManifestEntry e) {
      this.partition = e.partition();
      this.bucket = e.bucket();
      this.totalBuckets = e.totalBuckets();
    }
  }

  /**
   * The messages of a rollback from {@code latest} to {@code target}: per bucket, the latest's
   * files to remove and the copies to add, made now unless {@code copies} has them.
   */
  private List<CommitMessage> plan(Snapshot target, Snapshot latest, Copies copies) {
    Map<String, ManifestEntry> targetFiles = byTarget(store.newScan().plan(target));
    Map<String, ManifestEntry> latestFiles = byTarget(store.newScan().plan(latest));
    Map<String, IndexManifest.Entry> targetVectors = vectorsOf(target);
    Map<String, IndexManifest.Entry> latestVectors = vectorsOf(latest);
    Map<String, BucketChange> changes = new LinkedHashMap<>();
    for (Map.Entry<String, ManifestEntry> e : latestFiles.entrySet()) {
      if (!kept(e.getKey(), targetFiles, latestFiles, targetVectors, latestVectors)) {
        bucketOf(changes, e.getValue()).removed.add(e.getValue().file());
      }
    }
    DataFileFactory names = new DataFileFactory();
    List<DeletionFile> vectorsToCopy = new ArrayList<>();
    Map<String, String> copyOfDataFile = new LinkedHashMap<>(); // original name -> copy's name
    try {
      for (Map.Entry<String, ManifestEntry> e : targetFiles.entrySet()) {
        if (kept(e.getKey(), targetFiles, latestFiles, targetVectors, latestVectors)) {
          continue;
        }
        ManifestEntry source = e.getValue();
        DataFileMeta copy = copies.files.get(e.getKey());
        if (copy == null) {
          copy = source.file().copiedAs(names.newFileName());
          Path to = store.dataFilePath(source.partition(), source.bucket(), copy.fileName());
          copies.written.add(to);
          copyFile(source, to);
          copies.files.put(e.getKey(), copy);
          IndexManifest.Entry vector = targetVectors.get(e.getKey());
          if (vector != null) {
            vectorsToCopy.add(vector.deletionFile());
            copyOfDataFile.put(source.file().fileName(), copy.fileName());
          }
        }
        bucketOf(changes, source).copied.add(copy);
      }
      if (!vectorsToCopy.isEmpty()) {
        // one read per vector file, one new vector file for the copies
        Map<String, RoaringBitmap> bitmaps = new LinkedHashMap<>();
        DeletionVectors.read(store, vectorsToCopy)
            .forEach((dataFile, bits) -> bitmaps.put(copyOfDataFile.get(dataFile), bits));
        List<DeletionFile> written = DeletionVectors.write(store, bitmaps);
        copies.written.add(store.paths().index(written.get(0).dvFile()));
        written.forEach(d -> copies.vectors.put(d.dataFile(), d));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Rollback of " + table.fullName() + " failed", e);
    }
    for (BucketChange c : changes.values()) {
      for (DataFileMeta copy : c.copied) {
        DeletionFile d = copies.vectors.get(copy.fileName());
        if (d != null) {
          c.vectors.add(d);
        }
      }
    }
    List<CommitMessage> out = new ArrayList<>();
    for (BucketChange c : changes.values()) {
      out.add(
          new CommitMessage(
              c.partition,
              c.bucket,
              c.totalBuckets,
              List.of(),
              c.removed,
              c.copied,
              c.vectors,
              OptionalLong.of(latest.id())));
    }
    return out;
  }

  /** Whether both snapshots hold the file, with the same deletion vector. */
  private static boolean kept(
      String key,
      Map<String, ManifestEntry> targetFiles,
      Map<String, ManifestEntry> latestFiles,
      Map<String, IndexManifest.Entry> targetVectors,
      Map<String, IndexManifest.Entry> latestVectors) {
    return targetFiles.containsKey(key)
        && latestFiles.containsKey(key)
        && Objects.equals(targetVectors.get(key), latestVectors.get(key));
  }

  private static BucketChange bucketOf(Map<String, BucketChange> changes, ManifestEntry e) {
    String key = IndexManifest.target(e.partition(), e.bucket(), "");
    return changes.computeIfAbsent(key, k -> new BucketChange(e));
  }

  private static Map<String, ManifestEntry> byTarget(List<ManifestEntry> entries) {
    Map<String, ManifestEntry> out = new LinkedHashMap<>();
    for (ManifestEntry e : entries) {
      out.put(IndexManifest.target(e.partition(), e.bucket(), e.file().fileName()), e);
    }
    return out;
  }

  private Map<String, IndexManifest.Entry> vectorsOf(Snapshot s) {
    try {
      return IndexManifest.byTarget(
          new IndexManifest(store.fileIO(), store.paths()).read(s.indexManifest()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Copies a data file byte for byte; a copy left half written is deleted. */
  private void copyFile(ManifestEntry source, Path to) throws IOException {
    Path from = store.dataFilePath(source.partition(), source.bucket(), source.file().fileName());
    try (InputStream in = store.fileIO().fs(from).open(from);
        OutputStream out = store.fileIO().fs(to).create(to, FileSystem.WriteMode.NO_OVERWRITE)) {
      long copied = in.transferTo(out);
      if (copied != source.file().fileSize()) {
        throw new IOException(
            from + " holds " + copied + " bytes; its manifest says " + source.file().fileSize());
      }
    } catch (IOException | RuntimeException e) {
      IOException cleanup = store.fileIO().deleteQuietly(to);
      if (cleanup != null) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }
}
