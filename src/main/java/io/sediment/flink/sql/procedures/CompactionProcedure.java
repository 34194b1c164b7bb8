package io.sediment.flink.sql.procedures;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactResult;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.types.Row;

/**
 * What {@code sys.compact} and {@code sys.compact_database} share: the catalog and the runner their
 * compaction goes to, and their output rows, which have the fields of {@link CompactResult}, the
 * {@code jobId} of a streaming job, and one column of their own ({@code task}, {@code table}).
 */
abstract class CompactionProcedure implements Procedure {

  /** The output row type up to the procedure's own last column: {@code RESULT_FIELDS + "x T>"}. */
  static final String RESULT_FIELDS =
      "ROW<tasks INT, snapshotId BIGINT, filesBefore BIGINT, filesAfter BIGINT, bytesBefore BIGINT,"
          + " bytesAfter BIGINT, rowsRead BIGINT, rowsWritten BIGINT, durationMs BIGINT,"
          + " jobId STRING, ";

  final FileSystemCatalog catalog;
  final CompactionRunner runner;

  CompactionProcedure(FileSystemCatalog catalog, CompactionRunner runner) {
    this.catalog = catalog;
    this.runner = runner;
  }

  /**
   * A batch compaction's result row: {@code tasks, snapshotId, filesBefore, filesAfter,
   * bytesBefore, bytesAfter, rowsRead, rowsWritten, durationMs}, no {@code jobId}, then {@code
   * last} (the {@code task} of {@code sys.compact}, the {@code table} of {@code compact_database}).
   */
  static Row resultRow(CompactResult r, String last) {
    return Row.of(
        r.tasks(),
        r.snapshotId(),
        r.filesBefore(),
        r.filesAfter(),
        r.bytesBefore(),
        r.bytesAfter(),
        r.rowsRead(),
        r.rowsWritten(),
        r.durationMs(),
        null,
        last);
  }

  /** The row of a submitted streaming job: its {@code jobId} and nothing else. */
  static Row jobRow(String jobId) {
    return Row.of(null, null, null, null, null, null, null, null, null, jobId, null);
  }
}
