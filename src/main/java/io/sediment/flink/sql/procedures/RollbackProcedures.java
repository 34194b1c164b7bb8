package io.sediment.flink.sql.procedures;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.Rollback;
import io.sediment.maintenance.Tags;
import io.sediment.table.Table;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.types.Row;

/**
 * Paimon's rollback procedures, on {@link Rollback}. Each returns one row: the latest snapshot
 * before the rollback, the snapshot rolled back to, the new snapshot (null when the table already
 * held exactly the target's files), and the data files removed and copied.
 */
public final class RollbackProcedures {

  private RollbackProcedures() {}

  static final String ROW =
      "ROW<previous_snapshot_id BIGINT, target_snapshot_id BIGINT, current_snapshot_id BIGINT,"
          + " files_removed INT, files_copied INT>";

  /**
   * {@code CALL c.sys.rollback_to(`table` => 'db.t', snapshot_id => 12)} or {@code tag =>
   * 'nightly'}: the table's latest snapshot reads what that snapshot or tag reads.
   */
  public static final class To implements Procedure {

    public static final String NAME = "rollback_to";

    private final FileSystemCatalog catalog;

    public To(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(name = "tag", type = @DataTypeHint("STRING"), isOptional = true) String tag,
        @ArgumentHint(name = "snapshot_id", type = @DataTypeHint("BIGINT"), isOptional = true)
            Long snapshotId) {
      boolean byTag = tag != null && !tag.isBlank();
      if (byTag == (snapshotId != null)) {
        throw ProcedureArgs.bad(
            byTag ? "snapshot_id" : "tag",
            "give either tag or snapshot_id, the one to roll back to; nothing was run");
      }
      if (byTag) {
        try {
          Tags.checkName(tag.strip());
        } catch (IllegalArgumentException e) {
          throw ProcedureArgs.bad("tag", e);
        }
      }
      Rollback rollback = new Rollback(ProcedureArgs.table(catalog, table));
      Rollback.Result r;
      try {
        r = byTag ? rollback.toTag(tag.strip()) : rollback.toSnapshot(snapshotId);
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad(byTag ? "tag" : "snapshot_id", e);
      }
      return row(r);
    }
  }

  /**
   * {@code CALL c.sys.rollback_to_timestamp(`table` => 'db.t', timestamp => 1767225600000)}: rolls
   * back to the newest snapshot committed at or before the timestamp (epoch milliseconds), as
   * Paimon's procedure.
   */
  public static final class ToTimestamp implements Procedure {

    public static final String NAME = "rollback_to_timestamp";

    private final FileSystemCatalog catalog;

    public ToTimestamp(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(name = "timestamp", type = @DataTypeHint("BIGINT")) Long timestamp) {
      return rollBackTo(catalog, table, "timestamp", timestamp, "the time", Rollback::toTimestamp);
    }
  }

  /**
   * {@code CALL c.sys.rollback_to_watermark(`table` => 'db.t', watermark => 1767225600000)}: rolls
   * back to the newest snapshot whose watermark is at or before the given one (epoch milliseconds),
   * as Paimon's procedure.
   */
  public static final class ToWatermark implements Procedure {

    public static final String NAME = "rollback_to_watermark";

    private final FileSystemCatalog catalog;

    public ToWatermark(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(name = "watermark", type = @DataTypeHint("BIGINT")) Long watermark) {
      return rollBackTo(
          catalog, table, "watermark", watermark, "the watermark", Rollback::toWatermark);
    }
  }

  /** How a procedure rolls back to a point ({@code timestamp}, {@code watermark}). */
  private interface RollbackTo {
    Rollback.Result to(Rollback rollback, long point);
  }

  /**
   * Rolls back to {@code point}, the value of argument {@code argument} ({@code what} it is, in
   * milliseconds since the epoch); refusals name the argument.
   */
  private static Row[] rollBackTo(
      FileSystemCatalog catalog,
      String table,
      String argument,
      Long point,
      String what,
      RollbackTo to) {
    if (point == null) {
      throw ProcedureArgs.bad(argument, "give " + what + " in milliseconds since the epoch");
    }
    Table t = ProcedureArgs.table(catalog, table);
    Rollback.Result r;
    try {
      r = to.to(new Rollback(t), point);
    } catch (IllegalArgumentException e) {
      throw ProcedureArgs.bad(argument, e);
    }
    return row(r);
  }

  private static Row[] row(Rollback.Result r) {
    return new Row[] {
      Row.of(
          r.previousSnapshotId(),
          r.targetSnapshotId(),
          r.newSnapshotId().isPresent() ? r.newSnapshotId().getAsLong() : null,
          r.filesRemoved(),
          r.filesCopied())
    };
  }
}
