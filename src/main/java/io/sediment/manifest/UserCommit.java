package io.sediment.manifest;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sediment.fs.JsonSerde;
import java.util.List;

/**
 * The newest stream commit of a commit user: the snapshot it made, its identifier and kind. Also
 * the content of the user's hint file {@code snapshot/user-<escaped user>} (JSON, see docs/spec.md
 * section 4.2).
 */
public record UserCommit(
    @JsonProperty("commitUser") String commitUser,
    @JsonProperty("snapshotId") long snapshotId,
    @JsonProperty("commitIdentifier") long commitIdentifier,
    @JsonProperty("commitKind") CommitKind commitKind) {

  @JsonCreator
  public UserCommit {}

  public static UserCommit of(Snapshot s) {
    return new UserCommit(s.commitUser(), s.id(), s.commitIdentifier(), s.commitKind());
  }

  public String toJson() {
    return JsonSerde.toJson(this);
  }

  /**
   * Parses the content of a hint file, checking that every field is there.
   *
   * @throws IllegalArgumentException saying what is wrong (the caller names the file)
   */
  public static UserCommit fromJson(String json) {
    return JsonSerde.parseObject(
        json,
        UserCommit.class,
        List.of("commitUser", "snapshotId", "commitIdentifier", "commitKind"));
  }
}
