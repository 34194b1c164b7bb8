package io.sediment.manifest;

import io.sediment.data.BinaryRows;
import io.sediment.format.DataFileReader;
import io.sediment.format.DataFileWriter;
import io.sediment.format.FileFormatOptions;
import io.sediment.fs.FileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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

  private final FileIO fileIO;
  private final TablePaths paths;
  private final int partitionArity;

  public ManifestList(FileIO fileIO, TablePaths paths, int partitionArity) {
    this.fileIO = fileIO;
    this.paths = paths;
    this.partitionArity = partitionArity;
  }

  /** Writes a new manifest list and returns its file name. */
  public String write(List<ManifestFileMeta> metas) throws IOException {
    String name = ManifestFile.newName("manifest-list");
    try (DataFileWriter writer =
        DataFileWriter.create(paths.manifest(name), META_TYPE, FileFormatOptions.defaults())) {
      for (ManifestFileMeta m : metas) {
        writer.write(
            GenericRowData.of(
                StringData.fromString(m.fileName()),
                m.fileSize(),
                m.numAddedFiles(),
                m.numDeletedFiles(),
                BinaryRows.toBytes(m.minPartition()),
                BinaryRows.toBytes(m.maxPartition()),
                ManifestFile.encodeLongs(m.partitionNullCounts()),
                m.schemaId()));
      }
      writer.finish();
    }
    return name;
  }

  public List<ManifestFileMeta> read(String name) throws IOException {
    List<ManifestFileMeta> out = new ArrayList<>();
    try (DataFileReader reader = DataFileReader.open(paths.manifest(name), META_TYPE, null)) {
      RowData row;
      while ((row = reader.next()) != null) {
        out.add(
            new ManifestFileMeta(
                row.getString(0).toString(),
                row.getLong(1),
                row.getLong(2),
                row.getLong(3),
                BinaryRows.fromBytes(partitionArity, row.getBinary(4)),
                BinaryRows.fromBytes(partitionArity, row.getBinary(5)),
                ManifestFile.decodeLongs(row.getBinary(6)),
                row.getLong(7)));
      }
    }
    return out;
  }

  public void delete(String name) {
    fileIO.deleteQuietly(paths.manifest(name));
  }
}
