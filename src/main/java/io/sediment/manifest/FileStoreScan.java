package io.sediment.manifest;

import io.sediment.predicate.Predicate;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Reads the live data files of a snapshot from its manifests: base entries, then delta entries; a
 * file is live when it has an ADD entry and no DELETE entry (see {@link ManifestEntry.Identifier}).
 * A partition filter skips whole manifests whose partition statistics exclude it, and entries of
 * other partitions inside the rest.
 */
public final class FileStoreScan {

  /**
   * Reads manifests for every scan of the process, as Iceberg's shared worker pool does: one thread
   * per core (at most 8), daemon threads, so a plan of a large table decodes its manifests on every
   * core and a scan of a few manifests pays nothing.
   */
  private static final ExecutorService READERS = readers();

  /** Entries from which a plan reads its manifests in parallel. */
  static final long PARALLEL_MIN_ENTRIES = 10_000;

  private static ExecutorService readers() {
    int threads = Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors()));
    // Idle threads end after a minute, and none keeps the class loader of the job that happened
    // to start it: a task manager runs many jobs.
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            runnable -> {
              Thread t = new Thread(runnable, "sediment-manifest-reader");
              t.setDaemon(true);
              t.setContextClassLoader(FileStoreScan.class.getClassLoader());
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  private final ManifestList manifestList;
  private final ManifestFile manifestFile;
  private Predicate partitionFilter;
  private Integer bucket;
  private int manifestsRead;
  private int manifestsSkipped;

  public FileStoreScan(ManifestList manifestList, ManifestFile manifestFile) {
    this.manifestList = manifestList;
    this.manifestFile = manifestFile;
  }

  /** Keep only partitions that may match; the predicate is on the partition row type. */
  public FileStoreScan withPartitionFilter(Predicate partitionFilter) {
    this.partitionFilter = partitionFilter;
    return this;
  }

  public FileStoreScan withBucket(Integer bucket) {
    this.bucket = bucket;
    return this;
  }

  /** The manifests of a snapshot, base first then delta, pruned by the partition filter. */
  public List<ManifestFileMeta> manifests(Snapshot snapshot) throws IOException {
    List<ManifestFileMeta> all = manifestList.read(snapshot.baseManifestList()); // its own list
    all.addAll(manifestList.read(snapshot.deltaManifestList()));
    return all;
  }

  /**
   * The live files of {@code snapshot} (ADD entries only), in the order they were added. The
   * selected manifests are read in parallel ({@link #READERS}) and merged in their order.
   */
  public List<ManifestEntry> plan(Snapshot snapshot) {
    try {
      List<ManifestFileMeta> selected = new ArrayList<>();
      for (ManifestFileMeta meta : manifests(snapshot)) {
        if (selected(meta)) {
          selected.add(meta);
        }
      }
      long selectedEntries = 0;
      for (ManifestFileMeta meta : selected) {
        selectedEntries += meta.numEntries();
      }
      // Small plans (a bucket's scan, a table of a few manifests) read on the caller's thread: a
      // hand-off to the pool costs more than it saves there, and they never queue behind a large
      // plan's reads.
      boolean parallel = selected.size() > 1 && selectedEntries >= PARALLEL_MIN_ENTRIES;
      List<Future<List<ManifestEntry>>> reads = new ArrayList<>(selected.size());
      for (ManifestFileMeta meta : selected) {
        Callable<List<ManifestEntry>> read = () -> readEntries(meta);
        reads.add(parallel ? READERS.submit(read) : CompletableFuture.completedFuture(read.call()));
      }
      // sized for every entry of the manifests read when nothing filters them (a plan of a large
      // table would resize the map twenty times otherwise); a filtered plan keeps a few
      long added = 0;
      long removed = 0;
      if (partitionFilter == null && bucket == null) {
        for (ManifestFileMeta meta : selected) {
          added += meta.numAddedFiles();
          removed += meta.numDeletedFiles();
        }
      }
      Map<ManifestEntry.Identifier, ManifestEntry> live = new LinkedHashMap<>(capacity(added));
      Set<ManifestEntry.Identifier> deleted = new HashSet<>(capacity(removed));
      for (int i = 0; i < reads.size(); i++) {
        List<ManifestEntry> entries = await(reads, i);
        reads.set(i, null); // merged: its entries are the map's now
        for (ManifestEntry e : entries) {
          if (e.kind() == FileKind.ADD) {
            live.put(e.identifier(), e);
          } else {
            deleted.add(e.identifier());
          }
        }
      }
      live.keySet().removeAll(deleted);
      return new ArrayList<>(live.values());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the manifests of snapshot " + snapshot.id(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(
          "Cannot read the manifests of snapshot " + snapshot.id(),
          new InterruptedIOException("interrupted while reading manifests"));
    } catch (Exception e) {
      throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
  }

  private static int capacity(long entries) {
    return (int) Math.min(1 << 30, entries * 4 / 3 + 16);
  }

  private List<ManifestEntry> readEntries(ManifestFileMeta meta) throws IOException {
    List<ManifestEntry> out = new ArrayList<>();
    manifestFile.read(
        meta,
        partitionFilter,
        e -> {
          if (bucket == null || e.bucket() == bucket) {
            out.add(e);
          }
        });
    return out;
  }

  /** The entries of read {@code i}; on a failure the reads not yet done are cancelled. */
  private static List<ManifestEntry> await(List<Future<List<ManifestEntry>>> reads, int i)
      throws IOException, InterruptedException {
    try {
      return reads.get(i).get();
    } catch (ExecutionException e) {
      for (int j = i + 1; j < reads.size(); j++) {
        reads.get(j).cancel(true);
      }
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof Error error) {
        throw error; // as the caller's own thread would have
      }
      throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
    } catch (InterruptedException e) {
      for (Future<List<ManifestEntry>> read : reads) {
        if (read != null) {
          read.cancel(true);
        }
      }
      throw e;
    }
  }

  /**
   * What {@code snapshot} changed: the ADD and DELETE entries of its delta manifests, in order,
   * pruned by the partition filter and bucket.
   */
  public List<ManifestEntry> readDelta(Snapshot snapshot) throws IOException {
    return readList(snapshot.deltaManifestList());
  }

  /**
   * The changelog files {@code snapshot} added (ADD entries of its changelog manifest list), within
   * the filters; none when it has no changelog.
   */
  public List<ManifestEntry> readChangelog(Snapshot snapshot) throws IOException {
    return snapshot.changelogManifestList() == null
        ? new ArrayList<>()
        : readList(snapshot.changelogManifestList());
  }

  /** The entries of one manifest list's manifests, in order, within the filters. */
  private List<ManifestEntry> readList(String list) throws IOException {
    List<ManifestEntry> out = new ArrayList<>();
    for (ManifestFileMeta meta : manifestList.read(list)) {
      if (selected(meta)) {
        out.addAll(readEntries(meta));
      }
    }
    return out;
  }

  /** Whether the manifest may hold entries of the partition filter (counted as read or skipped). */
  private boolean selected(ManifestFileMeta meta) {
    if (partitionFilter != null
        && !partitionFilter.test(
            meta.numEntries(),
            meta.minPartition(),
            meta.maxPartition(),
            meta.partitionNullCounts())) {
      manifestsSkipped++;
      return false;
    }
    manifestsRead++;
    return true;
  }

  /** Manifest files opened by {@link #plan} so far. */
  public int manifestsRead() {
    return manifestsRead;
  }

  /** Manifest files skipped by partition statistics so far. */
  public int manifestsSkipped() {
    return manifestsSkipped;
  }
}
