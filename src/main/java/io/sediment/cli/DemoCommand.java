package io.sediment.cli;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.compact.CompactResult;
import io.sediment.flink.CompactJob;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.util.concurrent.Callable;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sediment demo}: writes {@code demo.events} (or the next free {@code demo.events_<n>}) in
 * many small commits, then inspects, compacts (batch topology, embedded Flink) and inspects it
 * again.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Create a table of many small files in a local warehouse, compact it with the batch"
            + " topology on the embedded Flink, and inspect it before and after.")
final class DemoCommand implements Callable<Integer> {

  private static final String DATABASE = "demo";

  @Spec CommandSpec spec;

  @Option(
      names = "--warehouse",
      description = "Warehouse path (default: a new temporary directory).")
  String warehouse;

  @Option(
      names = "--commits",
      defaultValue = "20",
      description = "Small commits to write (default 20).")
  int commits;

  @Mixin VerboseOption verbose;

  @Override
  public Integer call() throws Exception {
    if (commits < 2) {
      throw new IllegalArgumentException("--commits must be at least 2");
    }
    PrintWriter out = spec.commandLine().getOut();
    String wh =
        warehouse != null ? warehouse : Files.createTempDirectory("sediment-demo").toString();
    FileSystemCatalog catalog = new FileSystemCatalog(wh);
    catalog.createDatabase(DATABASE, true);
    Identifier table = freeTable(catalog);
    catalog.createTable(
        table,
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("day", DataTypes.STRING())
            .column("payload", DataTypes.STRING())
            .partitionKeys("day")
            .build(),
        false);
    writeSmallCommits(catalog.getTable(table));
    out.println("Warehouse: " + wh);
    out.println("Table: " + table.fullName());
    out.println("Before compaction:");
    out.print(TableInspector.render(TableInspector.inspect(catalog.getTable(table))));
    CompactResult r =
        CompactJob.builder(wh, table.fullName())
            .commitUser("demo")
            .option("compaction.min.file-num", "2")
            .build()
            .runBatch(FlinkEnvironments.create());
    out.println(CompactCommand.summary(r));
    out.println("After compaction:");
    out.print(TableInspector.render(TableInspector.inspect(catalog.getTable(table))));
    out.flush();
    return ExitCodes.OK;
  }

  /**
   * {@code demo.events}, or when an earlier demo left it in the warehouse, the first free {@code
   * demo.events_<n>}: a demo run again on the same warehouse works.
   */
  private static Identifier freeTable(FileSystemCatalog catalog) {
    Identifier id = new Identifier(DATABASE, "events");
    for (int n = 2; catalog.tableExists(id); n++) {
      id = new Identifier(DATABASE, "events_" + n);
    }
    return id;
  }

  /** {@code --commits} commits of 50 rows in each of two partitions: many small files. */
  private void writeSmallCommits(Table table) throws Exception {
    long next = 0;
    for (int c = 0; c < commits; c++) {
      WriteBuilder wb = table.newBatchWriteBuilder();
      try (TableWrite write = wb.newWrite()) {
        for (String day : new String[] {"2026-01-01", "2026-01-02"}) {
          for (int i = 0; i < 50; i++, next++) {
            write.write(row(next, day, "event-" + next));
          }
        }
        TableCommit commit = wb.newCommit();
        commit.commit(write.prepareCommit());
      }
    }
  }

  private static RowData row(long id, String day, String payload) {
    return GenericRowData.of(id, StringData.fromString(day), StringData.fromString(payload));
  }
}
