package io.sediment.manifest;

import io.sediment.data.BinaryRows;
import io.sediment.format.DataFileReader;
import io.sediment.format.DataFileWriter;
import io.sediment.format.FileFormatOptions;
import io.sediment.format.WrittenFile;
import io.sediment.fs.FileIO;
import io.sediment.predicate.Predicate;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * Reads and writes manifest files: Parquet files of {@link ManifestEntry} rows (layout in
 * docs/spec.md). Writing rolls to a new file at the manifest target size; reading can skip entries
 * of partitions a filter excludes.
 */
public final class ManifestFile {

  /** The Parquet row layout of a manifest entry. */
  public static final RowType ENTRY_TYPE =
      RowType.of(
          new LogicalType[] {
            new IntType(false), // kind
            new VarBinaryType(false, VarBinaryType.MAX_LENGTH), // partition
            new IntType(false), // bucket
            new IntType(false), // total_buckets
            new VarCharType(false, VarCharType.MAX_LENGTH), // file_name
            new BigIntType(false), // file_size
            new BigIntType(false), // row_count
            new VarBinaryType(false, VarBinaryType.MAX_LENGTH), // min_key
            new VarBinaryType(false, VarBinaryType.MAX_LENGTH), // max_key
            new VarBinaryType(false, VarBinaryType.MAX_LENGTH), // min_values
            new VarBinaryType(false, VarBinaryType.MAX_LENGTH), // max_values
            new VarBinaryType(false, VarBinaryType.MAX_LENGTH), // null_counts
            new BigIntType(false), // min_sequence_number
            new BigIntType(false), // max_sequence_number
            new BigIntType(false), // schema_id
            new IntType(false), // level
            new BigIntType(false), // creation_time_millis
            new IntType(false), // source
            new BigIntType(false) // delete_row_count
          },
          new String[] {
            "kind",
            "partition",
            "bucket",
            "total_buckets",
            "file_name",
            "file_size",
            "row_count",
            "min_key",
            "max_key",
            "min_values",
            "max_values",
            "null_counts",
            "min_sequence_number",
            "max_sequence_number",
            "schema_id",
            "level",
            "creation_time_millis",
            "source",
            "delete_row_count"
          });

  /** The columns of a manifest whose values repeat from entry to entry. */
  private static final Set<String> REPEATING_COLUMNS =
      Set.of(
          "kind",
          "partition",
          "bucket",
          "total_buckets",
          "schema_id",
          "level",
          "source",
          "delete_row_count");

  /**
   * The Parquet options of manifests: the defaults, with every column but those that repeat from
   * entry to entry (kind, partition, bucket, level, schema, source) written plain. Names, sizes,
   * keys, statistics, sequence numbers and times differ in every entry, where a dictionary only
   * costs: a 16 KB id list per column and file, and a dictionary page that grows to the page size
   * before the writer falls back; writing a manifest of 1,000 entries took 2.5 times as long with
   * them ({@code ManifestWriteBenchmark}). The repeating columns keep dictionaries, which read
   * faster.
   */
  public static final FileFormatOptions FORMAT =
      FileFormatOptions.defaults()
          .withPlainColumns(
              ENTRY_TYPE.getFieldNames().stream()
                  .filter(column -> !REPEATING_COLUMNS.contains(column))
                  .collect(Collectors.toSet()));

  private final FileIO fileIO;
  private final TablePaths paths;
  private final RowType partitionType;
  private final int keyArity;
  private final long schemaId;
  private final long targetFileSize;
  private final ManifestCache cache;

  public ManifestFile(
      FileIO fileIO,
      TablePaths paths,
      RowType partitionType,
      int keyArity,
      long schemaId,
      long targetFileSize) {
    this(fileIO, paths, partitionType, keyArity, schemaId, targetFileSize, ManifestCache.shared());
  }

  ManifestFile(
      FileIO fileIO,
      TablePaths paths,
      RowType partitionType,
      int keyArity,
      long schemaId,
      long targetFileSize,
      ManifestCache cache) {
    this.cache = cache;
    this.fileIO = fileIO;
    this.paths = paths;
    this.partitionType = partitionType;
    this.keyArity = keyArity;
    this.schemaId = schemaId;
    this.targetFileSize = targetFileSize;
  }

  /**
   * Writes entries in order, rolling at the target size; returns the manifests written. Each
   * manifest goes into the process's {@link ManifestCache} as a read would have made it: the
   * committer and planners that read it next find it there.
   */
  public List<ManifestFileMeta> write(List<ManifestEntry> entries) throws IOException {
    return write(entries, Integer.MAX_VALUE);
  }

  /**
   * Writes entries in order, rolling at the target size, and also where the partition changes once
   * the current manifest holds at least {@code splitEntries} entries (entries sorted by partition
   * then give manifests with narrow partition ranges).
   */
  public List<ManifestFileMeta> write(List<ManifestEntry> entries, int splitEntries)
      throws IOException {
    List<ManifestFileMeta> out = new ArrayList<>();
    Rolling rolling = new Rolling(out);
    try {
      ManifestEntry previous = null;
      for (ManifestEntry e : entries) {
        if (previous != null
            && rolling.entries() >= splitEntries
            && !previous.partition().equals(e.partition())) {
          rolling.finish();
        }
        rolling.write(e);
        previous = e;
      }
      rolling.finish();
    } catch (IOException | RuntimeException e) {
      rolling.abort();
      delete(out);
      throw e;
    }
    return out;
  }

  /**
   * Deletes manifest files (best effort, used when a commit attempt is abandoned) and forgets them
   * in the cache.
   */
  public void delete(List<ManifestFileMeta> metas) {
    for (ManifestFileMeta m : metas) {
      Path path = paths.manifest(m.fileName());
      fileIO.deleteQuietly(path);
      cache.remove(path.toString()); // after: a read in between cannot put it back
    }
  }

  /**
   * Hands each entry of the manifest a list names whose partition may match {@code partitionFilter}
   * (on the partition type; null for all) to {@code sink}, in the manifest's order. Entries come
   * from the process's {@link ManifestCache} when it holds the manifest, else from the file, read
   * at the size the list records (no file status asked: a HEAD less on an object store), and are
   * cached then, unless the manifest is larger than the cache keeps; they are immutable and may be
   * shared with other readers.
   */
  public void read(
      ManifestFileMeta manifest, Predicate partitionFilter, Consumer<ManifestEntry> sink)
      throws IOException {
    Path path = paths.manifest(manifest.fileName());
    String key = path.toString();
    List<ManifestEntry> cached = cache.get(key);
    if (cached == null) {
      decode(path, manifest.fileSize(), partitionFilter, sink, key);
      return;
    }
    // A manifest's entries come partition by partition, the entries of one sharing one row: the
    // filter is tested once per partition.
    BinaryRowData partition = null;
    boolean selected = true;
    for (ManifestEntry e : cached) {
      if (e.partition() != partition) {
        partition = e.partition();
        selected = partitionFilter == null || partitionFilter.test(partition);
      }
      if (selected) {
        sink.accept(e);
      }
    }
  }

  /** The entries of the manifest a list names, in order (a list of the caller's own). */
  public List<ManifestEntry> read(ManifestFileMeta manifest) throws IOException {
    List<ManifestEntry> out = new ArrayList<>();
    read(manifest, null, out::add);
    return out;
  }

  /**
   * The entries of one manifest read from the file itself, never from the cache (tests: a read of
   * the file to compare with, a damaged file).
   */
  List<ManifestEntry> readUncached(String fileName) throws IOException {
    List<ManifestEntry> out = new ArrayList<>();
    decode(paths.manifest(fileName), UNKNOWN_SIZE, null, out::add, null);
    return out;
  }

  /**
   * The entries of the manifest a list names, for what must learn whether the file is still there
   * (expiry and orphan removal tell an expired snapshot by a manifest that is gone): from the cache
   * when it holds the manifest and the file exists (one existence check instead of a read), else
   * from the file (and cached then). An unmodifiable list.
   *
   * @throws FileNotFoundException when the file is gone
   */
  public List<ManifestEntry> readExisting(ManifestFileMeta manifest) throws IOException {
    Path path = paths.manifest(manifest.fileName());
    List<ManifestEntry> cached = cache.getExisting(fileIO, path);
    if (cached != null) {
      return cached;
    }
    List<ManifestEntry> out = new ArrayList<>();
    decode(path, manifest.fileSize(), null, out::add, path.toString());
    return Collections.unmodifiableList(out);
  }

  /**
   * Reads the manifest at {@code path}, handing the entries the filter selects to {@code sink};
   * {@code fileSize} is the size the manifest's list records ({@link #UNKNOWN_SIZE}: asked of the
   * file system); with a {@code cacheKey}, also keeps every entry and caches them at the end, until
   * they grow past what the cache keeps (then, as without a key, entries of partitions the filter
   * excludes are never made).
   */
  private void decode(
      Path path,
      long fileSize,
      Predicate partitionFilter,
      Consumer<ManifestEntry> sink,
      String cacheKey)
      throws IOException {
    Entries entries = new Entries(cacheKey != null);
    try (DataFileReader reader = DataFileReader.open(path, ENTRY_TYPE, null, fileSize)) {
      RowData row;
      boolean selected = true;
      while ((row = reader.next()) != null) {
        if (entries.newPartition(row)) {
          // the filter is tested once per partition
          selected = partitionFilter == null || partitionFilter.test(entries.partition);
        }
        if (!entries.keeping() && !selected) {
          continue;
        }
        ManifestEntry entry = entries.add(row);
        if (selected) {
          sink.accept(entry);
        }
      }
    }
    if (cacheKey != null) {
      entries.cache(cacheKey);
    }
  }

  /**
   * The entries of one manifest made from its rows, as every reader sees them: the entries of one
   * partition share one partition row (a plan holds every file). With {@code keep}, they are kept
   * for the cache with an estimate of the heap they hold, until they grow past what it keeps.
   */
  private final class Entries {
    private List<ManifestEntry> kept;
    private long estimatedBytes;
    private byte[] partitionBytes;
    BinaryRowData partition;

    Entries(boolean keep) {
      this.kept = keep && cache.keeps(0) ? new ArrayList<>() : null;
    }

    /** Moves to the partition of {@code row}; whether it differs from the last row's. */
    boolean newPartition(RowData row) {
      byte[] bytes = row.getBinary(1);
      if (Arrays.equals(bytes, partitionBytes)) {
        return false;
      }
      partitionBytes = bytes;
      partition = BinaryRows.fromBytes(partitionType.getFieldCount(), bytes);
      estimatedBytes += ROW_OVERHEAD_BYTES + bytes.length;
      return true;
    }

    boolean keeping() {
      return kept != null;
    }

    /** The entry of {@code row}, in the partition of the last {@link #newPartition} call. */
    ManifestEntry add(RowData row) {
      ManifestEntry entry = toEntry(row, partition);
      if (kept != null) {
        kept.add(entry);
        estimatedBytes += estimatedBytes(entry.file());
        if (!cache.keeps(estimatedBytes)) {
          kept = null; // larger than the cache keeps: read on as without it
        }
      }
      return entry;
    }

    void cache(String key) {
      if (kept != null) {
        cache.put(key, Collections.unmodifiableList(kept), estimatedBytes);
      }
    }
  }

  /** A file size to ask the file system for. */
  private static final long UNKNOWN_SIZE = -1;

  /** The JVM objects of a row beside its bytes (object, segment array, segment). */
  private static final int ROW_OVERHEAD_BYTES = 96;

  /** An estimate of the heap an entry holds: its objects plus the bytes of its keys and stats. */
  private static long estimatedBytes(DataFileMeta f) {
    return 300
        + 2L * f.fileName().length()
        + 2L * ROW_OVERHEAD_BYTES
        + f.minKey().getSizeInBytes()
        + f.maxKey().getSizeInBytes()
        + f.statsSizeInBytes()
        + 8L * f.nullCounts().length;
  }

  private ManifestEntry toEntry(RowData row, BinaryRowData partition) {
    long[] nullCounts = decodeLongs(row.getBinary(11));
    // value statistics have one field per column of the file's own schema version (ALTER TABLE
    // may have added or dropped columns since): as many as its null counts
    int valueArity = nullCounts.length;
    DataFileMeta file =
        new DataFileMeta(
            row.getString(4).toString(),
            row.getLong(5),
            row.getLong(6),
            key(row.getBinary(7)),
            key(row.getBinary(8)),
            valueArity,
            row.getBinary(9),
            valueArity,
            row.getBinary(10),
            nullCounts,
            row.getLong(12),
            row.getLong(13),
            row.getLong(14),
            row.getInt(15),
            row.getLong(16),
            FileSource.values()[row.getInt(17)],
            row.getLong(18));
    return new ManifestEntry(
        FileKind.fromCode(row.getInt(0)), partition, row.getInt(2), row.getInt(3), file);
  }

  /** A key bound of a file: the one shared empty row when the table has no key (append tables). */
  private BinaryRowData key(byte[] bytes) {
    return keyArity == 0 && bytes.length == BinaryRows.EMPTY.getSizeInBytes()
        ? BinaryRows.EMPTY
        : BinaryRows.fromBytes(keyArity, bytes);
  }

  private static RowData toRow(ManifestEntry e) {
    DataFileMeta f = e.file();
    return GenericRowData.of(
        (int) e.kind().code(),
        BinaryRows.toBytes(e.partition()),
        e.bucket(),
        e.totalBuckets(),
        StringData.fromString(f.fileName()),
        f.fileSize(),
        f.rowCount(),
        BinaryRows.toBytes(f.minKey()),
        BinaryRows.toBytes(f.maxKey()),
        BinaryRows.toBytes(f.minValues()),
        BinaryRows.toBytes(f.maxValues()),
        encodeLongs(f.nullCounts()),
        f.minSequenceNumber(),
        f.maxSequenceNumber(),
        f.schemaId(),
        f.level(),
        f.creationTimeMillis(),
        f.source().ordinal(),
        f.deleteRowCount());
  }

  /** Big-endian 8-byte longs, as null counts are stored. */
  public static byte[] encodeLongs(long[] values) {
    ByteBuffer buf = ByteBuffer.allocate(values.length * 8);
    for (long v : values) {
      buf.putLong(v);
    }
    return buf.array();
  }

  public static long[] decodeLongs(byte[] bytes) {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    long[] out = new long[bytes.length / 8];
    for (int i = 0; i < out.length; i++) {
      out[i] = buf.getLong();
    }
    return out;
  }

  static String newName(String prefix) {
    return prefix + "-" + UUID.randomUUID();
  }

  /** Writes entries to manifest files, starting a new one at the target size. */
  private final class Rolling {
    private final List<ManifestFileMeta> out;
    private DataFileWriter writer;
    private String name;
    private RowStatsCollector partitionStats;
    // the entries as a read of the file will make them, for the cache
    private Entries written;
    private long added;
    private long deleted;

    Rolling(List<ManifestFileMeta> out) {
      this.out = out;
    }

    long entries() {
      return writer == null ? 0 : added + deleted;
    }

    void write(ManifestEntry e) throws IOException {
      if (writer == null) {
        name = newName("manifest");
        writer = DataFileWriter.create(paths.manifest(name), ENTRY_TYPE, FORMAT);
        partitionStats = new RowStatsCollector(partitionType);
        written = new Entries(true);
        added = 0;
        deleted = 0;
      }
      RowData row = toRow(e);
      writer.write(row);
      if (written.keeping()) {
        written.newPartition(row);
        written.add(row);
      }
      partitionStats.add(e.partition());
      if (e.kind() == FileKind.ADD) {
        added++;
      } else {
        deleted++;
      }
      if (writer.estimatedLength() >= targetFileSize) {
        finish();
      }
    }

    void finish() throws IOException {
      if (writer == null) {
        return;
      }
      WrittenFile file = writer.finish();
      writer = null;
      out.add(
          new ManifestFileMeta(
              name,
              file.fileSize(),
              added,
              deleted,
              partitionStats.min(),
              partitionStats.max(),
              partitionStats.nullCounts(),
              schemaId));
      // the planners and committers that read the new manifest next find it in the cache (once it
      // is in out: a failed write deletes out's manifests and forgets them)
      written.cache(paths.manifest(name).toString());
    }

    void abort() {
      if (writer != null) {
        try {
          writer.close();
        } catch (IOException ignored) {
          // close() of an unfinished writer deletes the partial file
        }
        writer = null;
      }
    }
  }
}
