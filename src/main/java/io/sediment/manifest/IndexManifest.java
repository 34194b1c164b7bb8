package io.sediment.manifest;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.type.TypeReference;
import io.sediment.data.BinaryRows;
import io.sediment.fs.FileIO;
import io.sediment.fs.JsonSerde;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * The deletion vectors of a snapshot: file {@code index/index-manifest-<uuid>} (JSON), named by the
 * snapshot's {@code indexManifest}. It lists, for every data file that has one, its current {@link
 * DeletionFile}. Each commit that changes deletion vectors writes a new index manifest (the
 * previous entries with the changes applied); other commits inherit the previous one. Deletions a
 * commit adds to a file whose vector another commit changed meanwhile are merged (union), never
 * replaced: see {@code io.sediment.commit.DeletionVectorChanges}.
 */
public final class IndexManifest {

  /** One line: a data file of a partition and bucket and its deletion vector. */
  public record Entry(
      @JsonProperty("partition") String partitionHex,
      @JsonProperty("bucket") int bucket,
      @JsonProperty("deletionFile") DeletionFile deletionFile) {

    @JsonCreator
    public Entry {}

    public static Entry of(BinaryRowData partition, int bucket, DeletionFile f) {
      return new Entry(HexFormat.of().formatHex(BinaryRows.toBytes(partition)), bucket, f);
    }

    public BinaryRowData partition(int arity) {
      return BinaryRows.fromBytes(arity, HexFormat.of().parseHex(partitionHex));
    }

    /** (partition, bucket, data file): what an entry is the deletion vector of. */
    public String target() {
      return partitionHex + "/" + bucket + "/" + deletionFile.dataFile();
    }
  }

  /** The {@link Entry#target()} of a data file of a partition and bucket. */
  public static String target(BinaryRowData partition, int bucket, String dataFile) {
    return HexFormat.of().formatHex(BinaryRows.toBytes(partition)) + "/" + bucket + "/" + dataFile;
  }

  /** The entries by {@link Entry#target()}, in their order. */
  public static Map<String, Entry> byTarget(List<Entry> entries) {
    Map<String, Entry> out = new LinkedHashMap<>();
    for (Entry e : entries) {
      out.put(e.target(), e);
    }
    return out;
  }

  private final FileIO fileIO;
  private final TablePaths paths;

  public IndexManifest(FileIO fileIO, TablePaths paths) {
    this.fileIO = fileIO;
    this.paths = paths;
  }

  public List<Entry> read(String name) throws IOException {
    if (name == null) {
      return List.of();
    }
    String json = new String(fileIO.readBytes(paths.index(name)), StandardCharsets.UTF_8);
    try {
      return JsonSerde.mapper().readValue(json, new TypeReference<List<Entry>>() {});
    } catch (IOException e) {
      throw new IOException("Cannot parse index manifest " + name, e);
    }
  }

  /** The deletion files of one bucket, by data file name. */
  public Map<String, DeletionFile> read(String name, BinaryRowData partition, int bucket)
      throws IOException {
    Map<String, DeletionFile> out = new LinkedHashMap<>();
    String hex = HexFormat.of().formatHex(BinaryRows.toBytes(partition));
    for (Entry e : read(name)) {
      if (e.bucket() == bucket && e.partitionHex().equals(hex)) {
        out.put(e.deletionFile().dataFile(), e.deletionFile());
      }
    }
    return out;
  }

  public String write(List<Entry> entries) throws IOException {
    String name = "index-manifest-" + UUID.randomUUID();
    fileIO.writeNew(
        paths.index(name),
        JsonSerde.toJson(new ArrayList<>(entries)).getBytes(StandardCharsets.UTF_8));
    return name;
  }

  public void delete(String name) {
    if (name != null) {
      fileIO.deleteQuietly(paths.index(name));
    }
  }
}
