package io.sediment.retention;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.ConsumerManager;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Expiry keeps what a live consumer needs, and forgets consumers past their expiration time. */
class ConsumerRetentionTest {

  @TempDir Path dir;

  private Table table(String expiration) {
    Schema.Builder b =
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT())
            .option("snapshot.num-retained.min", "1")
            .option("snapshot.num-retained.max", "2");
    if (expiration != null) {
      b.option("consumer.expiration-time", expiration);
    }
    FileSystemCatalog catalog = TestTables.catalog(dir);
    return TestTables.create(catalog, "t", b.build());
  }

  private static ConsumerManager consumers(Table t) {
    return new ConsumerManager(t.store().fileIO(), t.store().paths());
  }

  @Test
  void expiryKeepsEverySnapshotFromTheOneALiveConsumerNeeds() throws Exception {
    Table t = table(null);
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(t, List.of(row(i)));
    }
    assertThat(t.snapshotManager().listIds()).containsExactly(2L, 3L);
    consumers(t).record("reader", 3);
    for (long i = 3; i < 8; i++) {
      TestTables.writeBatch(t, List.of(row(i)));
    }
    assertThat(t.snapshotManager().listIds()).containsExactly(3L, 4L, 5L, 6L, 7L, 8L);
    consumers(t).record("reader", 7);
    TestTables.writeBatch(t, List.of(row(8L)));
    assertThat(t.snapshotManager().listIds()).containsExactly(7L, 8L, 9L);
    assertThat(consumers(t).all()).containsOnlyKeys("reader");
    assertThat(consumers(t).all().get("reader").nextSnapshot()).isEqualTo(7);
  }

  @Test
  void aConsumerPastItsExpirationTimeHoldsNothingAndIsDeleted() throws Exception {
    Table t = table("1 h");
    TestTables.writeBatch(t, List.of(row(0L)));
    consumers(t).record("stale", 1);
    consumers(t).record("live", 2);
    Path stale = dir.resolve("db.db/t/consumer/consumer-stale");
    Files.setLastModifiedTime(stale, FileTime.from(Instant.now().minusSeconds(7200)));
    for (long i = 1; i < 5; i++) {
      TestTables.writeBatch(t, List.of(row(i)));
    }
    assertThat(consumers(t).all()).containsOnlyKeys("live");
    assertThat(t.snapshotManager().listIds()).containsExactly(2L, 3L, 4L, 5L);
  }

  @Test
  void aConsumerIdMustNameAFile() {
    assertThatThrownBy(() -> table(null).copy(Map.of("consumer-id", "../x")))
        .hasMessageContaining("Invalid value '../x' for option 'consumer-id'")
        .hasMessageContaining("letters, digits");
  }
}
