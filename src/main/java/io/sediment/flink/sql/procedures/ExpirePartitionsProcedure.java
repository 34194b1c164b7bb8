package io.sediment.flink.sql.procedures;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.ExpirePartitions;
import io.sediment.table.Table;
import java.time.Duration;
import java.util.List;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.types.Row;

/**
 * {@code CALL c.sys.expire_partitions(`table` => 'db.t', expiration_time => '7 d',
 * timestamp_formatter => 'yyyyMMdd', timestamp_pattern => '$dt', expire_strategy => 'values-time',
 * max_expires => 10)}, Paimon's procedure; see {@link ExpirePartitions}. Returns one row per
 * partition dropped.
 */
public final class ExpirePartitionsProcedure implements Procedure {

  public static final String NAME = "expire_partitions";

  private final FileSystemCatalog catalog;

  public ExpirePartitionsProcedure(FileSystemCatalog catalog) {
    this.catalog = catalog;
  }

  @ProcedureHint(output = @DataTypeHint("ROW<expired_partition STRING>"))
  public Row[] call(
      ProcedureContext context,
      @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
      @ArgumentHint(name = "expiration_time", type = @DataTypeHint("STRING")) String expirationTime,
      @ArgumentHint(name = "timestamp_formatter", type = @DataTypeHint("STRING"), isOptional = true)
          String timestampFormatter,
      @ArgumentHint(name = "timestamp_pattern", type = @DataTypeHint("STRING"), isOptional = true)
          String timestampPattern,
      @ArgumentHint(name = "expire_strategy", type = @DataTypeHint("STRING"), isOptional = true)
          String expireStrategy,
      @ArgumentHint(name = "max_expires", type = @DataTypeHint("INT"), isOptional = true)
          Integer maxExpires) {
    Table t = ProcedureArgs.table(catalog, table);
    ExpirePartitions expire;
    try {
      expire = new ExpirePartitions(t);
    } catch (IllegalArgumentException e) {
      throw ProcedureArgs.bad("table", e);
    }
    Duration expiration = ProcedureArgs.duration("expiration_time", expirationTime);
    apply("expiration_time", () -> expire.expirationTime(expiration));
    if (timestampFormatter != null && !timestampFormatter.isBlank()) {
      apply("timestamp_formatter", () -> expire.timestampFormatter(timestampFormatter));
    }
    if (timestampPattern != null && !timestampPattern.isBlank()) {
      apply("timestamp_pattern", () -> expire.timestampPattern(timestampPattern));
    }
    if (expireStrategy != null && !expireStrategy.isBlank()) {
      apply("expire_strategy", () -> expire.strategy(expireStrategy.strip()));
    }
    if (maxExpires != null) {
      apply("max_expires", () -> expire.maxExpires(maxExpires));
    }
    List<String> expired = expire.execute();
    return expired.stream().map(p -> Row.of(p)).toArray(Row[]::new);
  }

  private static void apply(String argument, Runnable setter) {
    try {
      setter.run();
    } catch (IllegalArgumentException e) {
      throw ProcedureArgs.bad(argument, e);
    }
  }
}
