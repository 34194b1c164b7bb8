package io.sediment.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestCache;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A bad {@code sediment.manifest-cache.max-bytes} (a JVM system property) is refused where a
 * process starts to work with tables, before anything is written: when a catalog opens, and when a
 * table's store arrives in another process (a task manager deserializing an operator). Before, the
 * value was first parsed at the first manifest read, so a write left its data file and marker and
 * failed at its commit.
 */
class ManifestCachePropertyTest {

  @TempDir Path dir;

  static Stream<String> badValues() {
    return Stream.of("-1", "64 apples", "", "bogus", "1.5 parsecs", "-64 mb");
  }

  @AfterEach
  void restoreProperty() {
    System.clearProperty(ManifestCache.MAX_BYTES_PROPERTY);
  }

  /**
   * What a user does (open the catalog, create a database and a table, write rows) fails at its
   * first step with the property's message and leaves no directory or file behind.
   */
  @ParameterizedTest
  @MethodSource("badValues")
  void aWriteSessionFailsAtItsStartAndLeavesNothing(String bad) {
    Path warehouse = dir.resolve("warehouse");
    System.setProperty(ManifestCache.MAX_BYTES_PROPERTY, bad);

    assertThatThrownBy(
            () -> {
              Table t =
                  TestTables.create(
                      TestTables.catalog(warehouse), "t", TestTables.idValueSchema().build());
              TestTables.writeBatch(t, List.of(TestTables.row(1L, "a")));
            })
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message(bad));
    assertThat(warehouse).doesNotExist();
  }

  @ParameterizedTest
  @MethodSource("badValues")
  void aStoreArrivingInAProcessWithABadValueIsRefused(String bad) throws Exception {
    Table table =
        TestTables.create(TestTables.catalog(dir), "t", TestTables.idValueSchema().build());
    byte[] shipped = serialize(table.store());

    System.setProperty(ManifestCache.MAX_BYTES_PROPERTY, bad);
    assertThatThrownBy(() -> deserialize(shipped))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message(bad));

    System.setProperty(ManifestCache.MAX_BYTES_PROPERTY, "64 mb");
    assertThat(deserialize(shipped)).as("a good value in the receiving process").isNotNull();
  }

  private static String message(String bad) {
    return "System property sediment.manifest-cache.max-bytes must be a memory size of 0 or more"
        + " (bytes, or a number with a unit: 64 mb, 1g; 0 turns the manifest cache off), got '"
        + bad
        + "'";
  }

  private static byte[] serialize(FileStore store) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(store);
    }
    return bytes.toByteArray();
  }

  private static FileStore deserialize(byte[] bytes) throws Exception {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      return (FileStore) in.readObject();
    }
  }
}
