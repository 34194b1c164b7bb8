package io.sediment.format;

import java.io.Serializable;
import org.apache.flink.core.fs.Path;

/**
 * Result of finishing a {@link DataFileWriter}.
 *
 * @param path the data file
 * @param fileSize its size in bytes
 * @param rowCount number of rows in it
 * @param stats per-column statistics, indexed like the writer's row type
 */
public record WrittenFile(Path path, long fileSize, long rowCount, ColumnStats stats)
    implements Serializable {}
