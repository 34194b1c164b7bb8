package io.sediment.flink.sql.procedures;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.table.Table;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.types.Row;

/**
 * {@code CALL c.sys.expire_snapshots(`table` => 'db.t', retain_max => 10, retain_min => 1,
 * older_than => '1 d' | '2024-05-01 10:00:00', max_deletes => 10)}; see {@link ExpireSnapshots}.
 * Returns one row: the number of snapshots expired and of files deleted.
 */
public final class ExpireSnapshotsProcedure implements Procedure {

  public static final String NAME = "expire_snapshots";

  private final FileSystemCatalog catalog;

  public ExpireSnapshotsProcedure(FileSystemCatalog catalog) {
    this.catalog = catalog;
  }

  @ProcedureHint(
      output =
          @DataTypeHint(
              "ROW<expiredSnapshots INT, deletedDataFiles INT, deletedMetadataFiles INT>"))
  public Row[] call(
      ProcedureContext context,
      @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
      @ArgumentHint(name = "retain_max", type = @DataTypeHint("INT"), isOptional = true)
          Integer retainMax,
      @ArgumentHint(name = "retain_min", type = @DataTypeHint("INT"), isOptional = true)
          Integer retainMin,
      @ArgumentHint(name = "older_than", type = @DataTypeHint("STRING"), isOptional = true)
          String olderThan,
      @ArgumentHint(name = "max_deletes", type = @DataTypeHint("INT"), isOptional = true)
          Integer maxDeletes) {
    Table t = ProcedureArgs.table(catalog, table);
    ExpireSnapshots expire = new ExpireSnapshots(t);
    if (retainMax != null) {
      try {
        expire.retainMax(retainMax);
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("retain_max", e);
      }
    }
    if (retainMin != null) {
      try {
        expire.retainMin(retainMin);
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("retain_min", e);
      }
    }
    if (olderThan != null) {
      expire.olderThan(ProcedureArgs.pointInTime("older_than", olderThan));
    }
    if (maxDeletes != null) {
      try {
        expire.maxDeletes(maxDeletes);
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("max_deletes", e);
      }
    }
    if (retainMax == null && olderThan == null) {
      throw ProcedureArgs.bad("retain_max", "give retain_max or older_than (or both)");
    }
    try {
      expire.check();
    } catch (IllegalArgumentException e) {
      throw ProcedureArgs.bad("retain_min", e);
    }
    ExpireSnapshots.Result r = expire.execute();
    return new Row[] {
      Row.of(r.expiredSnapshots().size(), r.deletedDataFiles(), r.deletedMetadataFiles())
    };
  }
}
