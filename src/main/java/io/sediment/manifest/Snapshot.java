package io.sediment.manifest;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sediment.fs.JsonSerde;
import java.io.Serializable;
import java.util.List;

/**
 * One version of a table (file {@code snapshot/snapshot-<id>}, JSON, written once). The files of
 * the table at this snapshot are the entries of the base manifest list followed by those of the
 * delta manifest list; the delta holds exactly what this commit changed.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Snapshot(
    @JsonProperty("version") int version,
    @JsonProperty("id") long id,
    @JsonProperty("schemaId") long schemaId,
    @JsonProperty("baseManifestList") String baseManifestList,
    @JsonProperty("deltaManifestList") String deltaManifestList,
    @JsonProperty("indexManifest") String indexManifest,
    @JsonProperty("commitUser") String commitUser,
    @JsonProperty("commitIdentifier") long commitIdentifier,
    @JsonProperty("commitKind") CommitKind commitKind,
    @JsonProperty("timeMillis") long timeMillis,
    @JsonProperty("totalRecordCount") long totalRecordCount,
    @JsonProperty("deltaRecordCount") long deltaRecordCount,
    @JsonProperty("totalFileCount") long totalFileCount)
    implements Serializable {

  public static final int CURRENT_VERSION = 1;

  /** Every field but {@code indexManifest} (absent when the table has no deletion vectors). */
  private static final List<String> REQUIRED =
      List.of(
          "version",
          "id",
          "schemaId",
          "baseManifestList",
          "deltaManifestList",
          "commitUser",
          "commitIdentifier",
          "commitKind",
          "timeMillis",
          "totalRecordCount",
          "deltaRecordCount",
          "totalFileCount");

  @JsonCreator
  public Snapshot {}

  public String toJson() {
    return JsonSerde.toJson(this);
  }

  /**
   * Parses the content of a snapshot file, checking that every required field is there.
   *
   * @throws IllegalArgumentException saying what is wrong (the caller names the file)
   */
  public static Snapshot fromJson(String json) {
    Snapshot s = JsonSerde.parseObject(json, Snapshot.class, REQUIRED);
    if (s.version() < 1 || s.version() > CURRENT_VERSION) {
      throw new IllegalArgumentException(
          "format version "
              + s.version()
              + " is not supported (this version of Sediment reads 1 to "
              + CURRENT_VERSION
              + ")");
    }
    return s;
  }
}
