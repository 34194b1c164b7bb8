package io.sediment.maintenance;

import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestCache;
import io.sediment.manifest.TablePaths;
import io.sediment.marker.MarkedOutputs;
import io.sediment.retention.TableFiles;
import io.sediment.table.Table;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes files in a table's directory that no snapshot uses and that are older than a threshold:
 * data files left by failed or cancelled writers and compactions, deletion-vector files and index
 * manifests ({@code index/}) and manifests and manifest lists of lost commit attempts, and
 * temporary files of interrupted snapshot creations.
 *
 * <p>Files are listed first, then the compaction markers, then snapshots are read, so a snapshot
 * committed meanwhile is seen. An output of a compaction job in flight is skipped whatever its age
 * while its marker ({@code .markers/<commit-user>/marker-<file name>}) exists and the job is live
 * (one of its markers or release records is younger than the threshold); the job deletes a marker
 * once its output is committed or deleted. The age threshold (default: one day) protects files of
 * other writes still in progress, which are not referenced by any snapshot yet. Files under {@code
 * .markers/} are never orphans: the markers and release records of a stale job (none younger than
 * the threshold) protect nothing and are deleted once their outputs are deleted or committed
 * ({@link MarkedOutputs}). Metadata (manifests, manifest lists, files under {@code index/}, staged
 * snapshot files) is removed only once it is older than the threshold and one day: an in-flight
 * commit writes it before it waits for the commit lock. A staged snapshot or tag that the lock's
 * next holder may still publish is kept whatever its age ({@link PendingPublications}). Never
 * touched: {@code schema/}, {@code tag/}, snapshot files and hints. What a tag's snapshot
 * references is in use, also after its snapshot expired.
 */
public final class RemoveOrphanFiles {

  private static final Logger LOG = LoggerFactory.getLogger(RemoveOrphanFiles.class);

  /** Default age a file must have before it may be removed. */
  public static final long DEFAULT_OLDER_THAN_MILLIS = 24L * 3600 * 1000;

  private final Table table;
  private long olderThanMillis;
  private boolean dryRun;

  public RemoveOrphanFiles(Table table) {
    this.table = table;
    this.olderThanMillis = table.store().clock().millis() - DEFAULT_OLDER_THAN_MILLIS;
  }

  /** Only files last modified before this time (epoch millis) are removed. */
  public RemoveOrphanFiles olderThan(long epochMillis) {
    this.olderThanMillis = epochMillis;
    return this;
  }

  /** Only report the orphans, delete nothing. */
  public RemoveOrphanFiles dryRun(boolean dryRun) {
    this.dryRun = dryRun;
    return this;
  }

  /** Returns the orphan files found (and deleted, unless a dry run). */
  public List<Path> execute() {
    FileStore store = table.store();
    TablePaths paths = store.paths();
    // the table's clock: file ages are its now minus their modification times
    long now = store.clock().millis();
    List<FileStatus> candidates = new ArrayList<>();
    try {
      collect(store, paths.root(), paths, candidates, true);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the files of " + table.fullName(), e);
    }
    // After the listing: an output listed above whose marker is gone by now was committed (the
    // snapshots read below see it) or deleted.
    MarkedOutputs marked;
    try {
      // A job is live when it wrote a marker or release record within the last day, or after
      // older_than if that is longer ago: a short older_than must not strip a running job's
      // outputs of their protection.
      long liveSince = Math.min(olderThanMillis, now - DEFAULT_OLDER_THAN_MILLIS);
      marked = MarkedOutputs.list(store.fileIO(), paths, liveSince);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot list the compaction markers of "
              + table.fullName()
              + " under "
              + paths.markersDir(),
          e);
    }
    Set<String> inFlight = marked.protectedNames();
    Set<String> young = new HashSet<>();
    // A commit writes its manifests, manifest lists, index manifest, merged deletion vectors and
    // staged snapshot before it waits for the commit lock (minutes, at worst), and they are
    // referenced only once it publishes: they are removed only when older than a day too.
    long metadataOlderThan = Math.min(olderThanMillis, now - DEFAULT_OLDER_THAN_MILLIS);
    TableFiles used = TableFiles.ofRetainedSnapshots(store);
    PendingPublications pending = PendingPublications.of(store);
    List<Path> orphans = new ArrayList<>();
    for (FileStatus st : candidates) {
      Path p = st.getPath();
      String name = p.getName();
      String parent = p.getParent() == null ? "" : TableFiles.key(p.getParent());
      boolean metadata =
          parent.equals(TableFiles.key(paths.manifestDir()))
              || parent.equals(TableFiles.key(paths.indexDir()))
              || parent.equals(TableFiles.key(paths.snapshotDir()))
              || parent.equals(TableFiles.key(paths.tagDir()));
      if (st.getModificationTime() >= (metadata ? metadataOlderThan : olderThanMillis)) {
        young.add(name);
        continue;
      }
      if (inFlight.contains(name)) {
        continue; // an output of a running job, not committed yet
      }
      if (pending.mayBePublished(p)) {
        continue; // claimed under the commit lock, perhaps: its next holder publishes it
      }
      boolean inUse;
      if (parent.equals(TableFiles.key(paths.manifestDir()))) {
        inUse = used.metadataNames().contains(name);
      } else if (parent.equals(TableFiles.key(paths.indexDir()))) {
        inUse = used.indexFileNames().contains(name);
      } else {
        inUse = used.containsDataFile(p);
      }
      if (!inUse) {
        orphans.add(p);
      }
    }
    if (!dryRun && !orphans.isEmpty()) {
      List<IOException> errors = store.fileIO().deleteAll(orphans);
      ManifestCache.forget(orphans); // such as the manifests of a commit that never landed
      if (!errors.isEmpty()) {
        IOException e = new IOException("Could not delete " + errors.size() + " orphan file(s)");
        errors.forEach(e::addSuppressed);
        throw new UncheckedIOException(e);
      }
    }
    if (!dryRun) {
      // Outputs of stale jobs that are not young are now deleted, missing or used.
      List<Path> stale = marked.deleteStale(name -> !young.contains(name));
      if (!stale.isEmpty()) {
        LOG.info("Removed {} stale compaction marker(s) of {}", stale.size(), table.fullName());
      }
    }
    LOG.info(
        "{} {} orphan file(s) of {}",
        dryRun ? "Found" : "Removed",
        orphans.size(),
        table.fullName());
    return orphans;
  }

  private static void collect(
      FileStore store, Path dir, TablePaths paths, List<FileStatus> out, boolean top)
      throws IOException {
    for (FileStatus st : store.fileIO().list(dir)) {
      String name = st.getPath().getName();
      if (st.isDir()) {
        if (top
            && (name.equals("schema")
                || name.equals("consumer")
                || name.equals(TablePaths.MARKERS_DIR))) {
          continue; // schemas; consumers; the compaction jobs' markers and release records
        }
        if (top && name.equals("tag")) {
          for (FileStatus t : store.fileIO().list(st.getPath())) {
            if (t.getPath().getName().startsWith(".") && t.getPath().getName().endsWith(".tmp")) {
              out.add(t); // a staged tag (PendingPublications); tags themselves never are
            }
          }
          continue;
        }
        collect(store, st.getPath(), paths, out, false);
      } else if (top) {
        continue; // nothing of ours lives at the table root
      } else if (TableFiles.key(st.getPath().getParent())
          .equals(TableFiles.key(paths.snapshotDir()))) {
        if (name.startsWith(".") && name.endsWith(".tmp")) {
          out.add(st); // an interrupted snapshot or hint creation
        }
      } else {
        out.add(st);
      }
    }
  }
}
