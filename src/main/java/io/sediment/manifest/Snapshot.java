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
 * delta manifest list; the delta holds exactly what this commit changed. The changelog manifest
 * list, when present, lists the changelog files the commit added (they belong to this snapshot only
 * and go when it expires).
 *
 * <p>{@code watermark}, when present, is the largest event-time watermark (epoch milliseconds) any
 * commit up to this snapshot recorded: a Flink SQL writer records the watermark its committer had
 * seen at the checkpoint of the commit. Every snapshot carries the latest one's forward, so
 * watermarks never decrease along snapshot ids. Readers that do not know the field ignore it (it
 * changes no file's life), so it needs no new version.
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
    @JsonProperty("totalFileCount") long totalFileCount,
    @JsonProperty("changelogManifestList") String changelogManifestList,
    @JsonProperty("watermark") Long watermark)
    implements Serializable {

  /** The version of a snapshot without changelog files. */
  public static final int VERSION_1 = 1;

  /**
   * A snapshot with changelog files ({@code changelogManifestList}): an older Sediment must not
   * read it, since its expiry and orphan removal would not know those files.
   */
  public static final int CHANGELOG_VERSION = 2;

  /** The newest version this Sediment reads. */
  public static final int CURRENT_VERSION = CHANGELOG_VERSION;

  /** A snapshot without changelog files. */
  public Snapshot(
      int version,
      long id,
      long schemaId,
      String baseManifestList,
      String deltaManifestList,
      String indexManifest,
      String commitUser,
      long commitIdentifier,
      CommitKind commitKind,
      long timeMillis,
      long totalRecordCount,
      long deltaRecordCount,
      long totalFileCount) {
    this(
        version,
        id,
        schemaId,
        baseManifestList,
        deltaManifestList,
        indexManifest,
        commitUser,
        commitIdentifier,
        commitKind,
        timeMillis,
        totalRecordCount,
        deltaRecordCount,
        totalFileCount,
        null,
        null);
  }

  /** A snapshot without a watermark. */
  public Snapshot(
      int version,
      long id,
      long schemaId,
      String baseManifestList,
      String deltaManifestList,
      String indexManifest,
      String commitUser,
      long commitIdentifier,
      CommitKind commitKind,
      long timeMillis,
      long totalRecordCount,
      long deltaRecordCount,
      long totalFileCount,
      String changelogManifestList) {
    this(
        version,
        id,
        schemaId,
        baseManifestList,
        deltaManifestList,
        indexManifest,
        commitUser,
        commitIdentifier,
        commitKind,
        timeMillis,
        totalRecordCount,
        deltaRecordCount,
        totalFileCount,
        changelogManifestList,
        null);
  }

  /**
   * Every field but {@code indexManifest} (absent when the table has no deletion vectors), {@code
   * changelogManifestList} (absent when the commit added no changelog file) and {@code watermark}
   * (absent until a commit records one).
   */
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
