package io.sediment.table;

import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.FileStoreScan;
import io.sediment.manifest.InvalidMetadataFileException;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.TagManager;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.Predicates;
import io.sediment.schema.PrimaryKeyOptions;
import io.sediment.schema.ScanOptions;
import io.sediment.schema.TableOptions;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a streaming read: where it starts ({@code scan.mode}, with Paimon's meanings) and, for each
 * later snapshot, the changes it made. Without a changelog producer only APPEND snapshots change
 * what a stream sees: a COMPACT snapshot rewrites rows that were already emitted, so it adds
 * nothing (for any table kind), and an OVERWRITE snapshot is skipped (as Paimon does unless {@code
 * streaming-read-overwrite}). With {@code changelog-producer} = input or lookup the changes are the
 * snapshot's changelog files, and never its data files (see {@link #changes}).
 *
 * <p>A change split holds the files one APPEND snapshot added to one bucket ({@link
 * DataSplit#isChanges()}): an append table's rows, or a primary-key bucket's level-0 files, read as
 * an upsert stream (the latest version of each key in that snapshot, or its delete).
 */
public final class StreamScan {

  private static final Logger LOG = LoggerFactory.getLogger(StreamScan.class);

  private final FileStore store;
  private final Predicate filter;

  /** The invalid newest snapshot file the read waits at, warned about once. */
  private long invalidWarned = -1;

  StreamScan(FileStore store, Predicate filter) {
    this.store = store;
    this.filter = filter;
  }

  /** Where a stream starts: the full splits it reads first, and the first snapshot of changes. */
  public record Start(List<DataSplit> splits, long nextSnapshotId) {}

  /**
   * Where a stream starts, as snapshot ids: the snapshot read in full first (null: none), and the
   * first snapshot whose changes follow. Resolved once, when the job is planned, so that a job
   * restarted before its first checkpoint starts at the same place.
   */
  public record StartPoint(Long fullSnapshotId, long nextSnapshotId, boolean latest, String tag)
      implements Serializable {

    /** A start at a snapshot that is listed (not a tag's). */
    public StartPoint(Long fullSnapshotId, long nextSnapshotId, boolean latest) {
      this(fullSnapshotId, nextSnapshotId, latest, null);
    }
  }

  /**
   * The start the table's scan options choose: {@code latest-full} (default: the latest snapshot in
   * full, then its successors' changes), {@code latest} (changes after the latest), {@code
   * from-snapshot} (changes from {@code scan.snapshot-id} on), {@code from-snapshot-full} (that
   * snapshot in full, then changes), {@code from-timestamp} (changes of the snapshots committed
   * after {@code scan.timestamp-millis}); with {@code scan.tag-name}, the tag's snapshot in full,
   * then changes; with {@code scan.watermark}, the oldest snapshot whose watermark is at or after
   * it in full, then changes (Paimon refuses a streaming read from a watermark).
   */
  public StartPoint resolveStart() {
    TableOptions options = store.options();
    String mode = options.get(ScanOptions.SCAN_MODE).toLowerCase(Locale.ROOT);
    Long id = options.get(ScanOptions.SCAN_SNAPSHOT_ID);
    Long timestamp = options.get(ScanOptions.SCAN_TIMESTAMP_MILLIS);
    String tag = options.get(ScanOptions.SCAN_TAG_NAME);
    if (tag != null) {
      return fromTag(tag);
    }
    if (options.get(ScanOptions.SCAN_WATERMARK) != null) {
      // the oldest snapshot with that watermark in full, then the changes after it; later
      // snapshots are all there (expiry retires the oldest)
      long first = new TableScan(store, filter).startSnapshot().orElseThrow().id();
      return new StartPoint(first, first + 1, false);
    }
    if (mode.equals("default")) {
      mode = id != null ? "from-snapshot" : timestamp != null ? "from-timestamp" : "latest-full";
    }
    SnapshotManager snapshots = store.snapshotManager();
    TableScan scan = new TableScan(store, filter);
    // the newest valid snapshot: an invalid file above it is not committed (see changes)
    Optional<Snapshot> latestValid = snapshots.latest();
    long afterLatest = latestValid.isPresent() ? latestValid.get().id() + 1 : 1;
    switch (mode) {
      case "latest":
        return new StartPoint(null, afterLatest, false);
      case "from-snapshot":
        return new StartPoint(null, scan.startSnapshot().orElseThrow().id(), false);
      case "from-timestamp":
        {
          // the changes of the snapshots committed at or after it, as Paimon's (strictly before)
          Optional<Snapshot> before =
              TableScan.atOrBefore(
                  snapshots, timestamp == Long.MIN_VALUE ? timestamp : timestamp - 1);
          if (before.isPresent()) {
            return new StartPoint(null, before.get().id() + 1, false);
          }
          OptionalLong earliest = snapshots.earliestId();
          return new StartPoint(
              null, earliest.isPresent() ? earliest.getAsLong() : afterLatest, false);
        }
      default: // latest-full, from-snapshot-full
        Optional<Snapshot> first = scan.startSnapshot();
        boolean latestFull = id == null; // not a snapshot the user named
        return first.isEmpty()
            ? new StartPoint(null, afterLatest, false)
            : new StartPoint(first.get().id(), first.get().id() + 1, latestFull);
    }
  }

  /**
   * A start at tag {@code tag}: its snapshot in full (read from the tag when snapshot expiry
   * retired it), then the changes of every later snapshot, which must all be there still.
   *
   * @throws IllegalArgumentException when the table has no such tag (naming its tags), or when
   *     snapshots after the tag's expired (naming the snapshots there are)
   */
  private StartPoint fromTag(String tag) {
    TableScan scan = new TableScan(store, filter);
    long id = scan.startSnapshot().orElseThrow().id();
    OptionalLong earliest = store.snapshotManager().earliestId();
    if (earliest.isPresent() && earliest.getAsLong() > id + 1) {
      throw new IllegalArgumentException(
          "The snapshots after tag '"
              + tag
              + "' (scan.tag-name, snapshot "
              + id
              + ") of "
              + scan.tableName()
              + " expired: a streaming read from it would miss the changes of snapshots "
              + (id + 1)
              + " to "
              + (earliest.getAsLong() - 1)
              + "; "
              + scan.present()
              + ". Read the tag in batch, or start the stream at a snapshot still there");
    }
    return new StartPoint(id, id + 1, false, tag);
  }

  /** {@link #start(StartPoint)} of {@link #resolveStart()}. */
  public Start start() {
    return start(resolveStart());
  }

  /**
   * The splits of a start: the full snapshot's, and on a deletion-vector table without the lookup
   * changelog producer its level-0 files merged in (readers of such tables skip level 0, but a
   * stream must not: those rows were committed before the stream's first changes).
   *
   * @throws IllegalStateException when the full snapshot expired since the start was resolved
   */
  public Start start(StartPoint point) {
    if (point.fullSnapshotId() == null) {
      return new Start(List.of(), point.nextSnapshotId());
    }
    long pinned = point.fullSnapshotId();
    Optional<Snapshot> pinnedSnapshot = store.snapshotManager().snapshotIfExists(pinned);
    if (pinnedSnapshot.isEmpty()) {
      // Expired since, or before: a tag keeps it (unless deleted meanwhile). The start's tag, or
      // any: a consumer resuming a start records only the snapshot.
      TagManager tags = new TagManager(store.fileIO(), store.paths());
      pinnedSnapshot =
          (point.tag() != null ? tags.get(point.tag()).stream() : tags.all().values().stream())
              .map(TagManager.Tag::snapshot)
              .filter(t -> t.id() == pinned)
              .findFirst();
    }
    if (pinnedSnapshot.isEmpty() && point.latest()) {
      // The latest snapshot when the job was planned expired before it started: the latest now
      // is as good a start (a full read is the table's state, not changes).
      Optional<Snapshot> now = store.snapshotManager().latest();
      if (now.isPresent()) {
        return start(new StartPoint(now.get().id(), now.get().id() + 1, true));
      }
    }
    long id = pinned;
    Snapshot full =
        pinnedSnapshot.orElseThrow(
            () ->
                new IllegalStateException(
                    "Snapshot "
                        + id
                        + " of "
                        + new TableScan(store, filter).tableName()
                        + ", where the streaming read starts, expired before it was read; "
                        + new TableScan(store, filter).present()));
    boolean dv =
        store.schema().hasPrimaryKey()
            && store.options().get(PrimaryKeyOptions.DELETION_VECTORS_ENABLED);
    if (dv && !producer().equals("lookup")) {
      // The full read holds every row committed up to the start, level 0 too (batch scans of
      // such tables leave it out): the stream's changes (level-0 files or input changelog) come
      // after it. Merged over the levels' live rows by the reader, so that a level-0 version
      // older than a compacted one (a lagging window's) does not win.
      TableScan scan = new TableScan(store, filter).mergedWithLevel0();
      return new Start(withLevel0(full, scan.plan(full).splits()), point.nextSnapshotId());
    }
    return new Start(new TableScan(store, filter).plan(full).splits(), point.nextSnapshotId());
  }

  /** The table's {@code changelog-producer} (none for append tables). */
  private String producer() {
    return store.schema().hasPrimaryKey() ? store.options().changelogProducer() : "none";
  }

  /**
   * With a changelog producer a stream reads changelog files only: the writers' input in APPEND
   * snapshots ({@code input}), or what compactions computed ({@code lookup}: in the COMPACT
   * snapshots of writers and compaction jobs). Data files are never read as changes then, and an
   * OVERWRITE adds nothing.
   */
  private List<DataSplit> changelog(Snapshot s, String producer) {
    boolean read =
        producer.equals("input")
            ? s.commitKind() == CommitKind.APPEND
            : s.commitKind() != CommitKind.OVERWRITE;
    if (!read) {
      return List.of();
    }
    // in the order they were written: a bucket's rows (a key's -U and +U) may span files
    Map<ManifestEntry.Identifier, List<DataFileMeta>> groups;
    try {
      groups = byBucket(scanOf().readChangelog(s));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the changelog of snapshot " + s.id(), e);
    }
    List<DataSplit> splits = new ArrayList<>();
    for (Map.Entry<ManifestEntry.Identifier, List<DataFileMeta>> g : groups.entrySet()) {
      splits.add(
          DataSplit.changelog(s.id(), g.getKey().partition(), g.getKey().bucket(), g.getValue()));
    }
    return splits;
  }

  /** The level-0 files of {@code snapshot}, by bucket. */
  private Map<ManifestEntry.Identifier, List<DataFileMeta>> level0(Snapshot snapshot) {
    List<ManifestEntry> entries = new ArrayList<>();
    for (ManifestEntry e : scanOf().plan(snapshot)) {
      if (e.file().level() == 0) {
        entries.add(e);
      }
    }
    return byBucket(entries);
  }

  /** The splits with each bucket's level-0 files of {@code full} added (one split per bucket). */
  private List<DataSplit> withLevel0(Snapshot full, List<DataSplit> splits) {
    Map<ManifestEntry.Identifier, List<DataFileMeta>> level0 = level0(full);
    List<DataSplit> out = new ArrayList<>();
    for (DataSplit s : splits) {
      List<DataFileMeta> files = new ArrayList<>(s.files());
      List<DataFileMeta> added =
          level0.remove(new ManifestEntry.Identifier(s.partition(), s.bucket(), 0, ""));
      if (added != null) {
        files.addAll(added);
      }
      out.add(
          new DataSplit(
              s.snapshotId(), s.partition(), s.bucket(), files, s.deletionFiles(), false));
    }
    level0.forEach(
        (b, files) ->
            out.add(new DataSplit(full.id(), b.partition(), b.bucket(), files, Map.of(), false)));
    return out;
  }

  private FileStoreScan scanOf() {
    FileStoreScan scan = store.newScan();
    if (filter != null) {
      Predicates.projectTo(filter, store.partitionType()).ifPresent(scan::withPartitionFilter);
    }
    return scan;
  }

  private static List<DataSplit> changeSplits(
      long snapshotId, Map<ManifestEntry.Identifier, List<DataFileMeta>> groups) {
    List<DataSplit> splits = new ArrayList<>();
    for (Map.Entry<ManifestEntry.Identifier, List<DataFileMeta>> g : groups.entrySet()) {
      g.getValue().sort(Comparator.comparingLong(DataFileMeta::minSequenceNumber));
      splits.add(
          new DataSplit(
              snapshotId,
              g.getKey().partition(),
              g.getKey().bucket(),
              g.getValue(),
              Map.of(),
              true));
    }
    return splits;
  }

  /**
   * The changes snapshot {@code id} made, one split per bucket it added files to (none for COMPACT
   * and OVERWRITE snapshots); empty while snapshot {@code id} is not committed yet.
   *
   * @throws IllegalStateException when snapshot {@code id} expired before the stream read it
   */
  public Optional<List<DataSplit>> changes(long id) {
    SnapshotManager snapshots = store.snapshotManager();
    Optional<Snapshot> snapshot;
    try {
      snapshot = snapshots.snapshotIfExists(id);
    } catch (InvalidMetadataFileException e) {
      if (snapshots.exists(id + 1)) {
        throw e; // a committed snapshot above it: one the stream cannot read past
      }
      // The newest snapshot file does not parse: no committer published it, and commits are
      // refused until it is removed; the next one then takes its id. Wait for that one.
      if (invalidWarned != id) {
        invalidWarned = id;
        LOG.warn(
            "{}: the streaming read waits at snapshot {}, whose file is invalid ({}); see"
                + " docs/operations.md, \"An invalid snapshot file\"",
            new TableScan(store, filter).tableName(),
            id,
            e.getMessage());
      }
      return Optional.empty();
    }
    if (snapshot.isEmpty()) {
      OptionalLong latest = snapshots.latestId();
      if (latest.isPresent() && latest.getAsLong() > id) {
        throw new IllegalStateException(
            "Snapshot "
                + id
                + " of "
                + new TableScan(store, filter).tableName()
                + " expired before the streaming read got to it; "
                + new TableScan(store, filter).present()
                + ". Keep snapshots longer (snapshot.num-retained.min, snapshot.time-retained)"
                + " than a reader may lag, or restart the read from a snapshot still there");
      }
      return Optional.empty();
    }
    Snapshot s = snapshot.get();
    String producer = producer();
    if (!producer.equals("none")) {
      return Optional.of(changelog(s, producer));
    }
    if (s.commitKind() != CommitKind.APPEND) {
      return Optional.of(List.of());
    }
    Map<ManifestEntry.Identifier, List<DataFileMeta>> groups;
    try {
      groups = byBucket(scanOf().readDelta(s));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the changes of snapshot " + id, e);
    }
    return Optional.of(changeSplits(id, groups));
  }

  /** The files the ADD entries add, by bucket, in entry order. */
  private static Map<ManifestEntry.Identifier, List<DataFileMeta>> byBucket(
      List<ManifestEntry> entries) {
    Map<ManifestEntry.Identifier, List<DataFileMeta>> groups = new LinkedHashMap<>();
    for (ManifestEntry e : entries) {
      if (e.kind() == FileKind.ADD) {
        groups
            .computeIfAbsent(
                new ManifestEntry.Identifier(e.partition(), e.bucket(), 0, ""),
                k -> new ArrayList<>())
            .add(e.file());
      }
    }
    return groups;
  }
}
