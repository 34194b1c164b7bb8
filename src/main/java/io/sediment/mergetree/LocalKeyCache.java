package io.sediment.mergetree;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.EvolvingFileReader;
import io.sediment.manifest.FileStore;
import io.sediment.schema.PrimaryKeyOptions;
import java.io.EOFException;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

/**
 * Key lookup files of data files on local disk ({@code local-cache.dir}, default {@code
 * <java.io.tmpdir>/sediment-cache}): for each data file of a primary-key table, a file {@code
 * <table-hash>/<data-file>.s<schema-id>.keys} holding its rows in key order as (int position, int
 * length, binary row). Data files never change, so a lookup file, once built, is reused by every
 * later compaction; the least recently used files are removed when the cache grows beyond {@code
 * local-cache.max-size}, and temporary files of builds a dead process left, in any table's
 * directory of the cache, are removed after a day.
 */
public final class LocalKeyCache {

  private static final int BUFFER_SIZE = 1 << 16;
  private static final String BUILD_PREFIX = "build-";
  private static final String BUILD_SUFFIX = ".keys.tmp";

  /**
   * The age, by the table's clock, past which a build's temporary file is taken for one a dead
   * process left: far longer than any rewrite writes one output's lookup.
   */
  static final Duration STALE_BUILD = Duration.ofDays(1);

  /**
   * How often, by the table's clock, a process looks for dead builds in the other tables'
   * directories of its cache: a table this host never compacts again publishes nothing that would.
   */
  static final Duration SWEEP_INTERVAL = Duration.ofHours(1);

  /** When this process last looked in each cache directory's other tables, by a table's clock. */
  private static final Map<File, Long> SWEPT = new ConcurrentHashMap<>();

  // the format's ints are big-endian (as DataOutputStream wrote them before)
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  private final FileStore store;
  private final KeyValueLayout layout;
  private final File dir;
  private final long maxSize;

  public LocalKeyCache(FileStore store, KeyValueLayout layout) {
    this.store = store;
    this.layout = layout;
    String base = store.options().get(PrimaryKeyOptions.LOCAL_CACHE_DIR);
    if (base == null) {
      base = new File(System.getProperty("java.io.tmpdir"), "sediment-cache").getPath();
    }
    String table =
        UUID.nameUUIDFromBytes(store.paths().root().toString().getBytes(StandardCharsets.UTF_8))
            .toString();
    this.dir = new File(base, table);
    this.maxSize = store.options().get(PrimaryKeyOptions.LOCAL_CACHE_MAX_SIZE).getBytes();
  }

  public File directory() {
    return dir;
  }

  /** The lookup file of a data file, built now if it is not cached. */
  public File lookupFile(BinaryRowData partition, int bucket, DataFileMeta file)
      throws IOException {
    File f = fileOf(file.fileName());
    if (f.exists()) {
      f.setLastModified(store.clock().millis());
      return f;
    }
    try (EvolvingFileReader reader =
            EvolvingFileReader.open(store, partition, bucket, file, layout.fileType(), null);
        Builder builder = new Builder()) {
      RowData row;
      while ((row = reader.next()) != null) {
        builder.add(row);
      }
      builder.endFile();
      builder.publish(List.of(file.fileName()));
    }
    return f;
  }

  /**
   * A builder of the lookup files of data files being written now, fed the same rows in the same
   * order, so that the compaction that writes a level's files leaves their lookups in the cache and
   * the next compaction does not read them back to build them (see {@link #lookupFile}, whose files
   * are made the same way).
   */
  public Builder builder() {
    return new Builder();
  }

  // rows are cached in the reading schema's layout: another schema version builds its own
  private File fileOf(String dataFileName) {
    return new File(dir, dataFileName + ".s" + store.schema().id() + ".keys");
  }

  /**
   * Writes lookup files as (int position, int length, binary row), one per data file: {@link #add}
   * the file's rows in order, {@link #endFile} after its last, {@link #publish} once the data files
   * are complete (until then nothing is in the cache), {@link #close} deletes what was not
   * published.
   */
  public final class Builder implements AutoCloseable {
    private final RowDataSerializer serializer = new RowDataSerializer(layout.fileType());
    private final List<File> ended = new ArrayList<>();
    private File tmp;
    private FileOutputStream out;
    // the bytes not yet written to out: ints put in place, no stream call per value
    private byte[] buffer = new byte[BUFFER_SIZE];
    private int buffered;
    private int position;

    private Builder() {}

    public void add(RowData row) throws IOException {
      if (out == null) {
        open();
      }
      BinaryRowData b = serializer.toBinaryRow(row);
      int size = b.getSizeInBytes();
      if (buffer.length - buffered < 8 + size) {
        flush();
        if (buffer.length < 8 + size) {
          buffer = new byte[Math.max(8 + size, 2 * buffer.length)];
        }
      }
      INT.set(buffer, buffered, position++);
      INT.set(buffer, buffered + 4, size);
      BinarySegmentUtils.copyToBytes(b.getSegments(), b.getOffset(), buffer, buffered + 8, size);
      buffered += 8 + size;
    }

    private void open() throws IOException {
      Files.createDirectories(dir.toPath());
      tmp = new File(dir, BUILD_PREFIX + UUID.randomUUID() + BUILD_SUFFIX);
      out = new FileOutputStream(tmp);
      buffered = 0;
      position = 0;
    }

    private void flush() throws IOException {
      out.write(buffer, 0, buffered);
      buffered = 0;
    }

    /** The data file the rows went to has ended (a data file without rows has no lookup file). */
    public void endFile() throws IOException {
      if (out == null) {
        open();
      }
      flush();
      out.close();
      out = null;
      ended.add(tmp);
      tmp = null;
    }

    /**
     * Puts the lookup files of the ended data files into the cache under their names, in the order
     * they ended.
     */
    public void publish(List<String> dataFileNames) throws IOException {
      if (dataFileNames.size() != ended.size()) {
        throw new IllegalStateException(
            "Internal error: "
                + ended.size()
                + " lookup files for "
                + dataFileNames.size()
                + " data files");
      }
      File last = null;
      for (int i = 0; i < ended.size(); i++) {
        last = fileOf(dataFileNames.get(i));
        Files.move(ended.get(i).toPath(), last.toPath(), StandardCopyOption.ATOMIC_MOVE);
        // Recency is the table's clock, for built files as for used ones (least recently used
        // first).
        last.setLastModified(store.clock().millis());
      }
      ended.clear();
      if (last != null) {
        evict(last);
      }
    }

    /** Deletes the lookup files not published. */
    @Override
    public void close() throws IOException {
      if (out != null) {
        out.close();
        out = null;
      }
      if (tmp != null) {
        tmp.delete();
        tmp = null;
      }
      for (File f : ended) {
        f.delete();
      }
      ended.clear();
    }
  }

  /**
   * Removes least recently used lookup files while the cache, the lookups being built included, is
   * larger than its limit, and every build's temporary file older than {@link #STALE_BUILD}: one a
   * process left when it died (a closed builder deletes its own), which nothing else would ever
   * remove or count.
   */
  private void evict(File keep) {
    long now = store.clock().millis();
    sweepOtherTables(now);
    File[] all = dir.listFiles();
    if (all == null) {
      return;
    }
    List<File> lookups = new ArrayList<>();
    long total = 0;
    for (File f : all) {
      String name = f.getName();
      if (name.endsWith(".keys")) {
        lookups.add(f);
        total += f.length();
      } else if (isBuild(f)) {
        if (isStale(f, now)) {
          f.delete();
        } else {
          total += f.length(); // a build in progress, here or in another process
        }
      }
    }
    if (total <= maxSize) {
      return;
    }
    lookups.sort(Comparator.comparingLong(File::lastModified));
    for (File f : lookups) {
      if (total <= maxSize) {
        break;
      }
      if (!f.equals(keep)) {
        total -= f.length();
        f.delete();
      }
    }
  }

  /**
   * Removes the dead builds ({@link #STALE_BUILD}) in the directories of the cache's other tables,
   * at most once per {@link #SWEEP_INTERVAL} in a process; their lookups are their tables' own.
   */
  private void sweepOtherTables(long now) {
    File base = dir.getParentFile(); // dir is <base>/<table-hash>
    Long last = SWEPT.get(base);
    if (last != null && now >= last && now - last < SWEEP_INTERVAL.toMillis()) {
      return;
    }
    boolean claimed =
        last == null ? SWEPT.putIfAbsent(base, now) == null : SWEPT.replace(base, last, now);
    if (!claimed) {
      return; // another thread sweeps now
    }
    for (File table : listed(base.listFiles(File::isDirectory))) {
      if (table.equals(dir)) {
        continue;
      }
      for (File f : listed(table.listFiles())) {
        if (isBuild(f) && isStale(f, now)) {
          f.delete();
        }
      }
    }
  }

  /** {@code files} of a listing, none if the directory is gone. */
  private static File[] listed(File[] files) {
    return files == null ? new File[0] : files;
  }

  private static boolean isBuild(File f) {
    String name = f.getName();
    return name.startsWith(BUILD_PREFIX) && name.endsWith(BUILD_SUFFIX);
  }

  private static boolean isStale(File build, long now) {
    return now - build.lastModified() > STALE_BUILD.toMillis();
  }

  /**
   * Sequential reader of a lookup file; {@link #next()} reuses its row, which points into the
   * reader's buffer (valid until the next call). The file is read in large blocks and parsed in
   * place: a lookup reads a level's files whole, most of their rows only to pass them.
   */
  public final class Cursor implements AutoCloseable {
    private final File file;
    private final FileInputStream in;
    private final BinaryRowData row = new BinaryRowData(layout.fileType().getFieldCount());
    private byte[] buffer = new byte[BUFFER_SIZE];
    private MemorySegment segment = MemorySegmentFactory.wrap(buffer);
    private int start; // the next unread byte in buffer
    private int limit; // the end of the bytes read into buffer
    private int position;

    Cursor(File f) throws IOException {
      file = f;
      in = new FileInputStream(f);
    }

    /** The next row, or null at the end. */
    public BinaryRowData next() throws IOException {
      if (!fill(8)) {
        if (start == limit) {
          return null;
        }
        throw truncated();
      }
      position = (int) INT.get(buffer, start);
      int len = (int) INT.get(buffer, start + 4);
      start += 8;
      if (len < 0 || !fill(len)) {
        throw truncated();
      }
      row.pointTo(segment, start, len);
      start += len;
      return row;
    }

    /** Makes {@code n} bytes available from {@code start}; false when the file ends first. */
    private boolean fill(int n) throws IOException {
      if (limit - start >= n) {
        return true;
      }
      int left = limit - start;
      if (n > buffer.length) {
        byte[] larger = new byte[Math.max(n, 2 * buffer.length)];
        System.arraycopy(buffer, start, larger, 0, left);
        buffer = larger;
        segment = MemorySegmentFactory.wrap(buffer);
      } else {
        System.arraycopy(buffer, start, buffer, 0, left);
      }
      start = 0;
      limit = left;
      while (limit < n) {
        int read = in.read(buffer, limit, buffer.length - limit);
        if (read < 0) {
          return false;
        }
        limit += read;
      }
      return true;
    }

    private EOFException truncated() {
      return new EOFException("Lookup file " + file + " ends inside a row (truncated?)");
    }

    public int position() {
      return position;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  public Cursor open(File lookupFile) throws IOException {
    return new Cursor(lookupFile);
  }
}
