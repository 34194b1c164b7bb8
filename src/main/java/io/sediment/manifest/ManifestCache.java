package io.sediment.manifest;

import io.sediment.fs.FileIO;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.core.fs.Path;

/**
 * The parsed contents of recently read manifests and manifest lists, shared by every table of the
 * process and bounded by an estimate of the memory they hold; the least recently read go first.
 *
 * <p>Manifests and manifest lists are written once under a unique name and never changed, so an
 * entry can never be stale: what is cached is what the file holds for as long as the file exists.
 * Plans of the same table read mostly the same manifests (a dedicated compaction job plans every
 * interval, every writer and committer plans or checks conflicts against the latest snapshot), and
 * without the cache each read parses the Parquet footer and decodes every entry again. A file this
 * process writes goes in as it is written (as a read would make it), so the next plan does not read
 * back what the last commit wrote. What must see the file system itself, such as the expiry that
 * tells an expired snapshot by a manifest that is gone, checks that the file exists before it uses
 * a cached copy ({@link ManifestFile#readExisting}, {@link ManifestList#readExisting}).
 *
 * <p>The bound is {@value #MAX_BYTES_PROPERTY} (a memory size, 0 turns the cache off), by default a
 * sixteenth of the maximum heap and at most {@value #DEFAULT_MAX_BYTES_CAP} bytes; a manifest
 * larger than an eighth of the bound is not kept, so one large plan cannot empty the cache.
 */
public final class ManifestCache {

  /** The JVM system property that sets the bound, a memory size (docs/configuration.md). */
  public static final String MAX_BYTES_PROPERTY = "sediment.manifest-cache.max-bytes";

  static final long DEFAULT_MAX_BYTES_CAP = 256L << 20;

  // The process's cache, made at its first use (not in a static initializer: a bad property value
  // then fails every use with its own message, not with a class that cannot be initialized).
  private static volatile ManifestCache shared;

  private final long maxBytes;
  private final LinkedHashMap<String, Cached> manifests = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;
  private long hits;
  private long misses;

  ManifestCache(long maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException(
          "The manifest cache bound must be 0 (no cache) or more bytes, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /** The process's cache, bounded by {@link #MAX_BYTES_PROPERTY}. */
  static ManifestCache shared() {
    ManifestCache cache = shared;
    if (cache == null) {
      synchronized (ManifestCache.class) {
        if (shared == null) {
          shared = new ManifestCache(configuredMaxBytes());
        }
        cache = shared;
      }
    }
    return cache;
  }

  /**
   * Refuses a bad {@value #MAX_BYTES_PROPERTY} before anything is done with a table: a catalog
   * checks it when it opens and a table's store when it is made or arrives on a task manager, so a
   * job or command with a bad value fails at its start, not at its first commit after it wrote data
   * files.
   *
   * @throws IllegalArgumentException naming the property, what it allows and the value
   */
  public static void checkConfiguration() {
    configuredMaxBytes();
  }

  static long configuredMaxBytes() {
    return parseMaxBytes(System.getProperty(MAX_BYTES_PROPERTY));
  }

  /** The bound a value of {@link #MAX_BYTES_PROPERTY} sets (null: the default). */
  static long parseMaxBytes(String value) {
    if (value == null) {
      return Math.min(DEFAULT_MAX_BYTES_CAP, Runtime.getRuntime().maxMemory() / 16);
    }
    try {
      // the syntax of memory-size table options: bytes, or a number with a unit (64 mb, 1g)
      return MemorySize.parseBytes(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "System property "
              + MAX_BYTES_PROPERTY
              + " must be a memory size of 0 or more (bytes, or a number with a unit: 64 mb, 1g;"
              + " 0 turns the manifest cache off), got '"
              + value
              + "'",
          e);
    }
  }

  /** Whether manifests of {@code estimatedBytes} are kept. */
  boolean keeps(long estimatedBytes) {
    return maxBytes > 0 && estimatedBytes <= maxBytes / 8;
  }

  /**
   * The rows of the file at {@code path} (manifest entries of a manifest, manifest metas of a list:
   * a path is always read by the same reader), or null when they are not cached.
   */
  @SuppressWarnings("unchecked")
  synchronized <T> List<T> get(String path) {
    Cached cached = manifests.get(path);
    if (cached == null) {
      misses++;
      return null;
    }
    hits++;
    return (List<T>) cached.entries;
  }

  /**
   * The cached rows of {@code path} for a reader that must learn whether the file is still there
   * (expiry and orphan removal tell an expired snapshot by a list or manifest that is gone): null
   * when they are not cached (the caller reads the file); when they are, one existence check
   * instead of a read.
   *
   * @throws FileNotFoundException when they are cached but the file is gone
   */
  <T> List<T> getExisting(FileIO fileIO, Path path) throws IOException {
    List<T> cached = get(path.toString());
    if (cached != null && !fileIO.exists(path)) {
      throw new FileNotFoundException(path + " does not exist");
    }
    return cached;
  }

  /**
   * Keeps the rows (an unmodifiable list of immutable objects) of the file at {@code path},
   * evicting the least recently read until they fit.
   */
  synchronized void put(String path, List<?> entries, long estimatedBytes) {
    if (!keeps(estimatedBytes)) {
      return;
    }
    Cached previous = manifests.put(path, new Cached(entries, estimatedBytes));
    bytes += estimatedBytes - (previous == null ? 0 : previous.bytes);
    Iterator<Map.Entry<String, Cached>> eldest = manifests.entrySet().iterator();
    while (bytes > maxBytes && eldest.hasNext()) {
      bytes -= eldest.next().getValue().bytes;
      eldest.remove();
    }
  }

  /**
   * Forgets the manifests and lists among {@code deleted} (files this process deleted: expiry and
   * orphan removal), so entries of files that are gone do not push out the ones plans still read.
   */
  public static void forget(Collection<Path> deleted) {
    ManifestCache cache = shared();
    for (Path p : deleted) {
      cache.remove(p.toString());
    }
  }

  /** Forgets the file at {@code path} (a manifest or list deleted by this process). */
  synchronized void remove(String path) {
    Cached previous = manifests.remove(path);
    if (previous != null) {
      bytes -= previous.bytes;
    }
  }

  /** Forgets every manifest (tests that damage manifest files on purpose). */
  public static void clear() {
    ManifestCache cache = shared();
    synchronized (cache) {
      cache.manifests.clear();
      cache.bytes = 0;
    }
  }

  synchronized long bytes() {
    return bytes;
  }

  synchronized int size() {
    return manifests.size();
  }

  synchronized long hits() {
    return hits;
  }

  synchronized long misses() {
    return misses;
  }

  private record Cached(List<?> entries, long bytes) {}
}
