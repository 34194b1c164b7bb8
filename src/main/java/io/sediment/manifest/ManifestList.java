package io.sediment.manifest;

import io.sediment.data.BinaryRows;
import io.sediment.format.DataFileReader;
import io.sediment.format.DataFileWriter;
import io.sediment.format.FileFormatOptions;
import io.sediment.fs.FileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/** Reads and writes manifest lists: Parquet files of {@link ManifestFileMeta} rows. */
public final class ManifestList {

  public static final RowType META_TYPE =
      RowType.of(
          new LogicalType[] {
            new VarCharType(false, VarCharType.MAX_LENGTH),
            new BigIntType(false),
            new BigIntType(false),
            new BigIntType(false),
            new VarBinaryType(false, VarBinaryType.MAX_LENGTH),
            new VarBinaryType(false, VarBinaryType.MAX_LENGTH),
            new VarBinaryType(false, VarBinaryType.MAX_LENGTH),
            new BigIntType(false)
          },
          new String[] {
            "file_name", "file_size", "num_added_files", "num_deleted_files",
            "min_partition", "max_partition", "partition_null_counts", "schema_id"
          });

  /**
   * The Parquet options of manifest lists: as {@link ManifestFile#FORMAT}, names and sizes plain.
   */
  static final FileFormatOptions FORMAT =
      FileFormatOptions.defaults().withPlainColumns(Set.of("file_name", "file_size"));

  private final FileIO fileIO;
  private final TablePaths paths;
  private final int partitionArity;
  private final ManifestCache cache;

  public ManifestList(FileIO fileIO, TablePaths paths, int partitionArity) {
    this(fileIO, paths, partitionArity, ManifestCache.shared());
  }

  ManifestList(FileIO fileIO, TablePaths paths, int partitionArity, ManifestCache cache) {
    this.cache = cache;
    this.fileIO = fileIO;
    this.paths = paths;
    this.partitionArity = partitionArity;
  }

  /**
   * Writes a new manifest list and returns its file name. The list goes into the process's {@link
   * ManifestCache} as a read would have made it: the committer and planners that read it next find
   * it there.
   */
  public String write(List<ManifestFileMeta> metas) throws IOException {
    String name = ManifestFile.newName("manifest-list");
    Path path = paths.manifest(name);
    List<ManifestFileMeta> written = new ArrayList<>(metas.size());
    try (DataFileWriter writer = DataFileWriter.create(path, META_TYPE, FORMAT)) {
      for (ManifestFileMeta m : metas) {
        RowData row = toRow(m);
        writer.write(row);
        written.add(toMeta(row));
      }
      writer.finish();
    }
    cache(path.toString(), written);
    return name;
  }

  /**
   * The manifests a list names, in order (a list of the caller's own), from the process's {@link
   * ManifestCache} when it holds the list.
   */
  public List<ManifestFileMeta> read(String name) throws IOException {
    Path path = paths.manifest(name);
    String key = path.toString();
    List<ManifestFileMeta> metas = cache.get(key);
    if (metas == null) {
      metas = cache(key, decode(path));
    }
    return new ArrayList<>(metas);
  }

  /** The manifests a list names, read from the file itself, never from the cache (tests). */
  List<ManifestFileMeta> readUncached(String name) throws IOException {
    return decode(paths.manifest(name));
  }

  /**
   * The manifests a list names, for what must learn whether the file is still there (expiry and
   * orphan removal tell an expired snapshot by a list that is gone): from the cache when it holds
   * the list and the file exists (one existence check instead of a read), else from the file. An
   * unmodifiable list.
   *
   * @throws FileNotFoundException when the file is gone
   */
  public List<ManifestFileMeta> readExisting(String name) throws IOException {
    Path path = paths.manifest(name);
    List<ManifestFileMeta> metas = cache.getExisting(fileIO, path);
    return metas != null ? metas : cache(path.toString(), decode(path));
  }

  /** The objects of one {@link ManifestFileMeta} and its two partition rows, beside their bytes. */
  private static final int META_BYTES = 400;

  /** Puts a list into the cache (when it is small enough) and returns it unmodifiable. */
  private List<ManifestFileMeta> cache(String key, List<ManifestFileMeta> metas) {
    long estimatedBytes = 0;
    for (ManifestFileMeta m : metas) {
      estimatedBytes += META_BYTES + 2L * m.fileName().length();
      estimatedBytes += m.minPartition().getSizeInBytes() + m.maxPartition().getSizeInBytes();
    }
    List<ManifestFileMeta> unmodifiable = Collections.unmodifiableList(metas);
    cache.put(key, unmodifiable, estimatedBytes);
    return unmodifiable;
  }

  private List<ManifestFileMeta> decode(Path path) throws IOException {
    List<ManifestFileMeta> out = new ArrayList<>();
    try (DataFileReader reader = DataFileReader.open(path, META_TYPE, null)) {
      RowData row;
      while ((row = reader.next()) != null) {
        out.add(toMeta(row));
      }
    }
    return out;
  }

  private static RowData toRow(ManifestFileMeta m) {
    return GenericRowData.of(
        StringData.fromString(m.fileName()),
        m.fileSize(),
        m.numAddedFiles(),
        m.numDeletedFiles(),
        BinaryRows.toBytes(m.minPartition()),
        BinaryRows.toBytes(m.maxPartition()),
        ManifestFile.encodeLongs(m.partitionNullCounts()),
        m.schemaId());
  }

  /** A row of a list as a read gives it (new partition rows and counts, never the writer's). */
  private ManifestFileMeta toMeta(RowData row) {
    return new ManifestFileMeta(
        row.getString(0).toString(),
        row.getLong(1),
        row.getLong(2),
        row.getLong(3),
        BinaryRows.fromBytes(partitionArity, row.getBinary(4)),
        BinaryRows.fromBytes(partitionArity, row.getBinary(5)),
        ManifestFile.decodeLongs(row.getBinary(6)),
        row.getLong(7));
  }

  /** Deletes a list (best effort) and forgets it in the cache. */
  public void delete(String name) {
    Path path = paths.manifest(name);
    fileIO.deleteQuietly(path);
    cache.remove(path.toString()); // after: a read in between cannot put it back
  }
}
