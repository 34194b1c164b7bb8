package io.sediment.manifest;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sediment.fs.JsonSerde;
import java.io.Serializable;

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

  @JsonCreator
  public Snapshot {}

  public String toJson() {
    return JsonSerde.toJson(this);
  }

  public static Snapshot fromJson(String json) {
    return JsonSerde.fromJson(json, Snapshot.class);
  }
}
