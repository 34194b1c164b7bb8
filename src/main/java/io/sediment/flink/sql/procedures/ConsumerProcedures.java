package io.sediment.flink.sql.procedures;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.Consumers;
import io.sediment.table.Table;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.types.Row;

/**
 * Paimon's consumer procedures, on {@link Consumers}. Both return one row per consumer changed: its
 * id, the snapshot it was to resume at before (null for a new one) and after (null once deleted),
 * and {@code created}, {@code reset} or {@code deleted}.
 */
public final class ConsumerProcedures {

  private ConsumerProcedures() {}

  static final String ROW =
      "ROW<consumer_id STRING, previous_next_snapshot_id BIGINT, next_snapshot_id BIGINT,"
          + " action STRING>";

  static Row row(Consumers.Change c) {
    return Row.of(c.consumerId(), boxed(c.before()), boxed(c.after()), c.action());
  }

  private static Long boxed(OptionalLong v) {
    return v.isPresent() ? v.getAsLong() : null;
  }

  /**
   * {@code CALL c.sys.reset_consumer(`table` => 'db.t', consumer_id => 'reader', next_snapshot_id
   * => 12)}: where the consumer resumes (created if missing); without {@code next_snapshot_id} the
   * consumer is deleted.
   */
  public static final class Reset implements Procedure {

    public static final String NAME = "reset_consumer";

    private final FileSystemCatalog catalog;

    public Reset(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(name = "consumer_id", type = @DataTypeHint("STRING")) String consumerId,
        @ArgumentHint(name = "next_snapshot_id", type = @DataTypeHint("BIGINT"), isOptional = true)
            Long nextSnapshotId) {
      Consumers consumers = new Consumers(ProcedureArgs.table(catalog, table));
      try {
        Consumers.checkId(consumerId);
        if (nextSnapshotId == null) {
          return new Row[] {row(consumers.delete(consumerId))};
        }
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("consumer_id", e);
      }
      try {
        consumers.checkNextSnapshot(nextSnapshotId);
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("next_snapshot_id", e);
      }
      return new Row[] {row(consumers.reset(consumerId, nextSnapshotId))};
    }
  }

  /**
   * {@code CALL c.sys.clear_consumers(`table` => 'db.t', including_consumers => 'etl.*',
   * excluding_consumers => 'etl-keep')}: deletes the consumers whose id matches the first regular
   * expression (blank or left out: every one) and not the second (blank or left out: none).
   */
  public static final class Clear implements Procedure {

    public static final String NAME = "clear_consumers";

    private final FileSystemCatalog catalog;

    public Clear(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(
                name = "including_consumers",
                type = @DataTypeHint("STRING"),
                isOptional = true)
            String including,
        @ArgumentHint(
                name = "excluding_consumers",
                type = @DataTypeHint("STRING"),
                isOptional = true)
            String excluding) {
      Table t = ProcedureArgs.table(catalog, table);
      Pattern in = pattern("including_consumers", including);
      Pattern out = pattern("excluding_consumers", excluding);
      List<Consumers.Change> cleared = new Consumers(t).clear(in, out);
      return cleared.stream().map(ConsumerProcedures::row).toArray(Row[]::new);
    }
  }

  private static Pattern pattern(String argument, String regex) {
    try {
      return Consumers.idPattern(regex);
    } catch (IllegalArgumentException e) {
      throw ProcedureArgs.bad(argument, e);
    }
  }
}
