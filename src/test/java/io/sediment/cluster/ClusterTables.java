package io.sediment.cluster;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import org.apache.flink.table.api.DataTypes;

/** Tables the cluster tests write and compact. */
final class ClusterTables {

  private ClusterTables() {}

  /** {@code db.events (id BIGINT NOT NULL, p STRING)}, partitioned by {@code p}. */
  static Table createEvents(FileSystemCatalog catalog) {
    return TestTables.create(
        catalog,
        "events",
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("p", DataTypes.STRING())
            .partitionKeys("p")
            .build());
  }
}
