package io.sediment.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store travels in Flink state (sources' splits and enumerator state) by Java serialization: it
 * keeps its clock, and a store serialized before stores carried one comes back on the system clock
 * instead of failing on the first decision about time.
 */
class FileStoreSerializationTest {

  @TempDir Path dir;

  @Test
  void aStoreKeepsItsClockAndAStoreWithoutOneComesBackOnTheSystemClock() throws Exception {
    Table table =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            Schema.newBuilder().column("id", DataTypes.BIGINT().notNull()).build());
    ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    FileStore store = table.store().withClock(clock);
    FileStore copy = roundTrip(store);
    assertThat(copy.clock().millis()).isEqualTo(clock.millis());
    assertThat(copy.rowType()).isEqualTo(store.rowType());

    // As an older version wrote it: no clock field.
    Field field = FileStore.class.getDeclaredField("clock");
    field.setAccessible(true);
    field.set(store, null);
    FileStore old = roundTrip(store);
    assertThat(old.clock()).isEqualTo(Clock.systemUTC());
    assertThat(old.rowType()).isEqualTo(store.rowType());
    assertThat(old.options()).isEqualTo(store.options());
  }

  @Test
  void aCatalogOrStoreRefusesANullClockWhenGivenIt() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    assertThatThrownBy(() -> catalog.withClock(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("clock");
  }

  private static FileStore roundTrip(FileStore store) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(store);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (FileStore) in.readObject();
    }
  }
}
