package io.sediment.retention;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sediment.commit.SnapshotCommits;
import io.sediment.fs.FileIO;
import io.sediment.fs.JsonSerde;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.InvalidMetadataFileException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.flink.core.fs.Path;

/**
 * The record of an expiration in progress, file {@code snapshot/EXPIRING} (JSON, see docs/spec.md
 * section "Expiry record"): the snapshots being retired, oldest first, with their manifest lists
 * and index manifest. Written before the first snapshot file is deleted and deleted after the last
 * file they alone referenced, so a rerun after a failure or crash knows what to finish although the
 * snapshot files are gone.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record ExpiryRecord(
    @JsonProperty("version") int version,
    @JsonProperty("snapshots") List<Entry> snapshots,
    @JsonProperty("abandoned") Boolean abandoned) {

  static final int CURRENT_VERSION = 1;

  @JsonCreator
  ExpiryRecord {}

  /** One retired snapshot. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Entry(
      @JsonProperty("id") long id,
      @JsonProperty("baseManifestList") String baseManifestList,
      @JsonProperty("deltaManifestList") String deltaManifestList,
      @JsonProperty("indexManifest") String indexManifest,
      @JsonProperty("changelogManifestList") String changelogManifestList) {

    @JsonCreator
    Entry {}

    static Entry of(TableFiles.Retired r) {
      return new Entry(
          r.id(),
          r.baseManifestList(),
          r.deltaManifestList(),
          r.indexManifest(),
          r.changelogManifestList());
    }

    TableFiles.Retired retired() {
      return new TableFiles.Retired(
          id, baseManifestList, deltaManifestList, indexManifest, changelogManifestList);
    }
  }

  static ExpiryRecord of(List<TableFiles.Retired> retired) {
    return new ExpiryRecord(CURRENT_VERSION, retired.stream().map(Entry::of).toList(), null);
  }

  /** This record marked as left by a run that failed: no run is working on it any more. */
  ExpiryRecord markedAbandoned() {
    return new ExpiryRecord(version, snapshots, true);
  }

  boolean isAbandoned() {
    return Boolean.TRUE.equals(abandoned);
  }

  String toJson() {
    return JsonSerde.toJson(this);
  }

  List<TableFiles.Retired> retired() {
    return snapshots.stream().map(Entry::retired).toList();
  }

  /**
   * Creates the record (under the table's commit lock when it has one); false when one exists
   * already (another expiration is unfinished).
   */
  boolean create(FileStore store, Path file) throws IOException {
    return SnapshotCommits.tryCreateGuarded(store, file, toJson().getBytes(StandardCharsets.UTF_8));
  }

  /** The record at {@code file}, if there is one; an error names the file when it is invalid. */
  static Optional<ExpiryRecord> read(FileIO io, Path file) {
    String json;
    try {
      json = io.readUtf8(file);
    } catch (FileNotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the expiry record " + file, e);
    }
    ExpiryRecord r;
    try {
      r = JsonSerde.parseObject(json, ExpiryRecord.class, List.of("version", "snapshots"));
    } catch (IllegalArgumentException e) {
      throw new InvalidMetadataFileException(file, e.getMessage(), e);
    }
    if (r.version() != CURRENT_VERSION) {
      throw new InvalidMetadataFileException(
          file, "format version " + r.version() + " is not supported", null);
    }
    for (Entry e : r.snapshots()) {
      if (e == null
          || e.id() < 1
          || e.baseManifestList() == null
          || e.deltaManifestList() == null) {
        throw new InvalidMetadataFileException(
            file, "an entry lacks its id or manifest lists: " + e, null);
      }
    }
    return Optional.of(r);
  }
}
