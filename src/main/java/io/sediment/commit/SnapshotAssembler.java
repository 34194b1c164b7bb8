package io.sediment.commit;

import io.sediment.manifest.CommitKind;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.ManifestFile;
import io.sediment.manifest.ManifestFileMeta;
import io.sediment.manifest.ManifestList;
import io.sediment.manifest.ManifestMerger;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.CommitOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.core.fs.Path;

/**
 * Builds the snapshot of one commit attempt on top of the latest snapshot: the index manifest (the
 * latest deletion vectors with the commit's changes, see {@link DeletionVectorChanges}), the base
 * manifest list (the latest manifests, merged when small ones pile up), the delta manifest list,
 * and the record and file counts. On failure it deletes what it wrote.
 */
final class SnapshotAssembler {

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(SnapshotAssembler.class);

  private final FileStore store;
  private final String commitUser;
  private final ManifestFile manifestFile;
  private final ManifestList manifestList;
  private final IndexManifest indexManifest;
  private final DeletionVectorChanges vectorChanges;

  SnapshotAssembler(FileStore store, String commitUser) {
    this.store = store;
    this.commitUser = commitUser;
    this.manifestFile = store.manifestFile();
    this.manifestList = store.manifestList();
    this.indexManifest = new IndexManifest(store.fileIO(), store.paths());
    this.vectorChanges = new DeletionVectorChanges(store);
  }

  /** The larger of two watermarks, either of which may be absent (null). */
  static Long laterWatermark(Long a, Long b) {
    return a == null ? b : b == null ? a : Long.valueOf(Math.max(a, b));
  }

  /**
   * Assembles an attempt. {@code delta} holds the manifests of {@code changes}; when {@code
   * ownsDelta} they were written for this attempt only and its cleanup deletes them too. {@code
   * vectorMessages} are the messages whose deletion vectors the commit adds. {@code changelog} are
   * the changelog files the commit adds (ADD entries), listed by the snapshot's own changelog
   * manifest list. {@code watermark} is the commit's (null: none); the snapshot records the larger
   * of it and the latest snapshot's.
   */
  SnapshotAttempt prepare(
      Optional<Snapshot> latest,
      List<ManifestFileMeta> delta,
      boolean ownsDelta,
      List<ManifestEntry> changes,
      List<ManifestEntry> changelog,
      List<CommitMessage> vectorMessages,
      SnapshotVectors vectors,
      CommitKind kind,
      long identifier,
      Long watermark)
      throws IOException {
    String index = latest.map(Snapshot::indexManifest).orElse(null);
    String newIndex = null;
    String mergedVectorFile = null;
    List<IndexManifest.Entry> newVectors = null;
    List<ManifestFileMeta> mergedManifests = List.of();
    String baseList = null;
    String deltaList = null;
    List<ManifestFileMeta> changelogManifests = List.of();
    String changelogList = null;
    try {
      boolean addsVectors = vectorMessages.stream().anyMatch(m -> !m.deletionFiles().isEmpty());
      boolean dropsFiles = changes.stream().anyMatch(e -> e.kind() == FileKind.DELETE);
      if (addsVectors || (index != null && dropsFiles)) {
        DeletionVectorChanges.Result r =
            vectorChanges.apply(
                vectors.of(latest), removedTargets(changes), vectorMessages, vectors);
        mergedVectorFile = r.mergedFile();
        if (r.changed()) {
          newIndex = r.entries().isEmpty() ? null : indexManifest.write(r.entries());
          newVectors = r.entries();
          index = newIndex;
        }
      }
      List<ManifestFileMeta> base = new ArrayList<>();
      long totalRecords = 0;
      long totalFiles = 0;
      if (latest.isPresent()) {
        base.addAll(manifestList.read(latest.get().baseManifestList()));
        base.addAll(manifestList.read(latest.get().deltaManifestList()));
        totalRecords = latest.get().totalRecordCount();
        totalFiles = latest.get().totalFileCount();
      }
      ManifestMerger.Result merged =
          new ManifestMerger(
                  manifestFile,
                  store.options().get(CommitOptions.MANIFEST_TARGET_FILE_SIZE).getBytes(),
                  store.options().get(CommitOptions.MANIFEST_MERGE_MIN_COUNT))
              .maybeMerge(base);
      mergedManifests = merged.written();
      long deltaRecords = 0;
      for (ManifestEntry e : changes) {
        long rows = e.file().rowCount() - e.file().deleteRowCount();
        if (e.kind() == FileKind.ADD) {
          deltaRecords += rows;
          totalFiles++;
        } else {
          deltaRecords -= rows;
          totalFiles--;
        }
      }
      baseList = manifestList.write(merged.manifests());
      deltaList = manifestList.write(delta);
      if (!changelog.isEmpty()) {
        changelogManifests = manifestFile.write(changelog);
        changelogList = manifestList.write(changelogManifests);
      }
      long id = latest.map(s -> s.id() + 1).orElse(1L);
      Snapshot snapshot =
          new Snapshot(
              changelogList == null ? Snapshot.VERSION_1 : Snapshot.CHANGELOG_VERSION,
              id,
              store.schema().id(),
              baseList,
              deltaList,
              index,
              commitUser,
              identifier,
              kind,
              commitTime(latest),
              totalRecords + deltaRecords,
              deltaRecords,
              totalFiles,
              changelogList,
              laterWatermark(latest.map(Snapshot::watermark).orElse(null), watermark));
      List<ManifestFileMeta> ownedManifests = new ArrayList<>(changelogManifests);
      if (ownsDelta) {
        ownedManifests.addAll(delta);
      }
      Runnable cleanup =
          cleanup(
              baseList,
              deltaList,
              changelogList,
              mergedManifests,
              ownedManifests,
              newIndex,
              mergedVectorFile);
      List<Path> added = new ArrayList<>();
      for (ManifestEntry e : changes) {
        if (e.kind() == FileKind.ADD) {
          added.add(store.dataFilePath(e.partition(), e.bucket(), e.file().fileName()));
        }
      }
      Set<String> vectorFiles = new LinkedHashSet<>();
      for (CommitMessage m : vectorMessages) {
        m.deletionFiles().forEach(d -> vectorFiles.add(d.dvFile()));
      }
      if (mergedVectorFile != null) {
        vectorFiles.add(mergedVectorFile);
      }
      if (newVectors != null) {
        // only the vector files the new index manifest points into (merged ones replace others)
        Set<String> referenced = new HashSet<>();
        newVectors.forEach(v -> referenced.add(v.deletionFile().dvFile()));
        vectorFiles.retainAll(referenced);
      }
      vectorFiles.forEach(f -> added.add(store.paths().index(f)));
      if (newIndex != null) {
        added.add(store.paths().index(newIndex));
      }
      for (ManifestEntry e : changelog) {
        added.add(store.dataFilePath(e.partition(), e.bucket(), e.file().fileName()));
      }
      added.add(store.paths().manifest(baseList));
      added.add(store.paths().manifest(deltaList));
      if (changelogList != null) {
        added.add(store.paths().manifest(changelogList));
      }
      for (ManifestFileMeta m : changelogManifests) {
        added.add(store.paths().manifest(m.fileName()));
      }
      for (ManifestFileMeta m : delta) {
        added.add(store.paths().manifest(m.fileName()));
      }
      for (ManifestFileMeta m : mergedManifests) {
        added.add(store.paths().manifest(m.fileName()));
      }
      return new SnapshotAttempt(snapshot, newVectors, cleanup, added);
    } catch (IOException | RuntimeException e) {
      // Not the delta: the caller owns it until an attempt is made.
      cleanup(
              baseList,
              deltaList,
              changelogList,
              mergedManifests,
              changelogManifests,
              newIndex,
              mergedVectorFile)
          .run();
      throw e;
    }
  }

  /** The targets of the data files the changes delete: their vectors go with them. */
  private static Set<String> removedTargets(List<ManifestEntry> changes) {
    Set<String> removed = new HashSet<>();
    for (ManifestEntry e : changes) {
      if (e.kind() == FileKind.DELETE) {
        removed.add(IndexManifest.target(e.partition(), e.bucket(), e.file().fileName()));
      }
    }
    return removed;
  }

  private Runnable cleanup(
      String baseList,
      String deltaList,
      String changelogList,
      List<ManifestFileMeta> mergedManifests,
      List<ManifestFileMeta> delta,
      String newIndex,
      String mergedVectorFile) {
    return () -> {
      if (baseList != null) {
        manifestList.delete(baseList);
      }
      if (deltaList != null) {
        manifestList.delete(deltaList);
      }
      if (changelogList != null) {
        manifestList.delete(changelogList);
      }
      manifestFile.delete(mergedManifests);
      manifestFile.delete(delta);
      indexManifest.delete(newIndex);
      if (mergedVectorFile != null) {
        store.fileIO().deleteQuietly(store.paths().index(mergedVectorFile));
      }
    };
  }

  /**
   * Never before the previous commit's time (another machine's clock may be behind): the searches
   * by time (time travel, rollback and tags by timestamp) rely on it. A previous time far ahead of
   * this clock is logged: until this clock passes it, commits keep that time, which time-based
   * retention and idle tags then see standing still.
   */
  private long commitTime(Optional<Snapshot> latest) {
    long now = store.clock().millis();
    long previous = latest.map(Snapshot::timeMillis).orElse(0L);
    if (previous - now > 60_000) {
      LOG.warn(
          "Snapshot {} was committed at {}, {} s after this machine's clock: commits keep that"
              + " time until the clock passes it (check the committers' clocks)",
          latest.get().id(),
          java.time.Instant.ofEpochMilli(previous),
          (previous - now) / 1000);
    }
    return Math.max(now, previous);
  }
}
