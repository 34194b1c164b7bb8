package io.sediment.testutil;

import io.sediment.data.BinaryRows;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;

/** Metadata of data files that tests plan or commit without reading them. */
public final class DataFiles {

  private DataFiles() {}

  /**
   * A level-0 file of ten rows without keys or statistics, its sequence numbers {@code minSequence}
   * to {@code minSequence + 9}.
   */
  public static DataFileMeta tenRows(
      String name, long size, long minSequence, long writtenMillis, FileSource source) {
    return new DataFileMeta(
        name,
        size,
        10,
        BinaryRows.EMPTY,
        BinaryRows.EMPTY,
        BinaryRows.EMPTY,
        BinaryRows.EMPTY,
        new long[0],
        minSequence,
        minSequence + 9,
        0,
        0,
        writtenMillis,
        source,
        0);
  }
}
