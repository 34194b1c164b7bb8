package io.sediment.flink.sql;

import io.sediment.table.DataSplit;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A split of a streaming read: a {@link DataSplit} (a snapshot read in full, or the changes one
 * snapshot made to one bucket) and how many of its rows were already emitted.
 */
record StreamSplit(String id, DataSplit split, long position) implements SourceSplit {

  @Override
  public String splitId() {
    return id;
  }

  StreamSplit at(long position) {
    return new StreamSplit(id, split, position);
  }
}
