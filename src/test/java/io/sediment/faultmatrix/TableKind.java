package io.sediment.faultmatrix;

import io.sediment.schema.Schema;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;

/**
 * The three kinds of table every fault runs against. All are partitioned by {@code p} (two
 * partitions, so a compaction has two tasks) with one bucket per partition where there are buckets,
 * and have the columns {@code (id BIGINT, p STRING, v STRING)}.
 */
enum TableKind {
  /** Append-only: every row is new. */
  APPEND,
  /** Primary key {@code (p, id)}, deduplicating: a key's latest row wins. */
  PRIMARY_KEY,
  /**
   * Primary key with deletion vectors; the writer compacts its buckets (local cache on), so each
   * commit is visible at once and adds deletion vectors to older files.
   */
  DELETION_VECTORS;

  boolean hasPrimaryKey() {
    return this != APPEND;
  }

  Schema schema(Path localCache) {
    return schema(localCache, Map.of());
  }

  Schema schema(Path localCache, Map<String, String> options) {
    Schema.Builder b =
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("p", DataTypes.STRING().notNull())
            .column("v", DataTypes.STRING())
            .partitionKeys("p");
    if (hasPrimaryKey()) {
      b.primaryKey("p", "id").option("bucket", "1");
    }
    if (this == DELETION_VECTORS) {
      b.option("deletion-vectors.enabled", "true")
          .option("local-cache.enabled", "true")
          .option("local-cache.dir", localCache.toString());
    }
    options.forEach(b::option);
    return b.build();
  }

  /**
   * Options of a compaction that rewrites every file of every partition: a full compaction, which
   * any two small files qualify for.
   */
  Map<String, String> fullCompaction() {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("compaction.full", "true");
    o.put("compaction.min.file-num", "2");
    return o;
  }
}
