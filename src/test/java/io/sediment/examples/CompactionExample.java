package io.sediment.examples;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactTask;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;

/** The example of docs/compaction.md, kept compiling and running by CompactionExampleTest. */
public final class CompactionExample {

  public static CompactResult run(String warehouse) throws Exception {
    // A partitioned append table.
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse);
    catalog.createDatabase("shop", true);
    Identifier id = new Identifier("shop", "orders");
    catalog.createTable(
        id,
        Schema.newBuilder()
            .column("order_id", DataTypes.BIGINT().notNull())
            .column("day", DataTypes.STRING())
            .column("amount", DataTypes.DOUBLE())
            .partitionKeys("day")
            .build(),
        true);
    Table table = catalog.getTable(id);

    // Ten small commits: ten small files per partition.
    for (int commit = 0; commit < 10; commit++) {
      WriteBuilder builder = table.newBatchWriteBuilder();
      try (TableWrite write = builder.newWrite()) {
        for (int i = 0; i < 100; i++) {
          long orderId = commit * 100L + i;
          String day = orderId % 2 == 0 ? "2026-11-28" : "2026-11-29";
          write.write(GenericRowData.of(orderId, StringData.fromString(day), orderId * 1.5));
        }
        List<CommitMessage> messages = write.prepareCommit();
        builder.newCommit().commit(messages);
      }
    }

    // Dry run: what would be compacted?
    List<CompactTask> plan =
        table
            .newCompactBuilder()
            .withPartitionFilter(
                "{\"method\":\"equal\",\"field\":\"day\",\"literals\":[\"2026-11-29\"]}")
            .plan();
    for (CompactTask task : plan) {
      System.out.printf(
          "would compact %s bucket %d: %d files, %d bytes%n",
          task.partitionPath(), task.bucket(), task.inputs().size(), task.inputBytes());
    }

    // Compact that partition: one COMPACT snapshot.
    CompactResult result =
        table
            .newCompactBuilder()
            .withPartitionFilter(
                "{\"method\":\"equal\",\"field\":\"day\",\"literals\":[\"2026-11-29\"]}")
            .withCommitUser("nightly")
            .withOptions(Map.of("target-file-size", "64 mb", "compaction.parallelism", "2"))
            .execute(); // blocks until committed; executeAsync() returns a CompletableFuture
    System.out.println(result.toJson());
    return result;
  }

  public static void main(String[] args) throws Exception {
    run(args.length > 0 ? args[0] : "warehouse");
  }
}
