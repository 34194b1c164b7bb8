package io.sediment.manifest;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.Serializable;

/**
 * The deletion vector of one data file: a serialized RoaringBitmap of deleted row positions at
 * {@code offset}/{@code length} in the file {@code index/<dvFile>}. A newer deletion file of the
 * same data file replaces the older one (it holds every deleted position, not just the new ones).
 */
public record DeletionFile(
    @JsonProperty("dataFile") String dataFile,
    @JsonProperty("dvFile") String dvFile,
    @JsonProperty("offset") long offset,
    @JsonProperty("length") int length,
    @JsonProperty("cardinality") long cardinality)
    implements Serializable {

  @JsonCreator
  public DeletionFile {}
}
