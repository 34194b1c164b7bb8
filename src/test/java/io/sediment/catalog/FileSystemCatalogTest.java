package io.sediment.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.schema.Schema;
import io.sediment.schema.SchemaChange;
import io.sediment.schema.TableSchema;
import io.sediment.table.Table;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemCatalogTest {

  @TempDir Path dir;
  FileSystemCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = new FileSystemCatalog(dir.toString());
  }

  private static Schema.Builder simple() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("p", DataTypes.STRING())
        .column("v", DataTypes.DOUBLE());
  }

  /**
   * The names of the columns primary-key data files add are refused by CREATE TABLE, in any case,
   * as ALTER TABLE refuses them: such a table could never be written (two columns of one name).
   */
  @Test
  void reservedColumnNamesAreRefusedByCreate() {
    catalog.createDatabase("db", false);
    int n = 0;
    for (String name : List.of("_SEQUENCE_NUMBER", "_ROW_KIND", "_row_kind", "_Sequence_Number")) {
      for (boolean primaryKey : new boolean[] {true, false}) {
        Schema.Builder b = simple().column(name, DataTypes.INT());
        if (primaryKey) {
          b.primaryKey("id").option("bucket", "1");
        }
        Identifier id = new Identifier("db", "r" + n++);
        assertThatThrownBy(() -> catalog.createTable(id, b.build(), false))
            .as(name)
            .hasMessageContaining("Column name '" + name + "' is reserved");
        assertThat(catalog.tableExists(id)).isFalse();
      }
    }
  }

  /**
   * A table dropped while a job still wrote to it leaves a directory that job's committer filled
   * again: CREATE TABLE of the same name refuses it, where the new table read the old snapshots'
   * files with its own columns.
   */
  @Test
  void createRefusesTheLeftoversOfADroppedTable() throws IOException {
    catalog.createDatabase("db", false);
    Identifier id = new Identifier("db", "t");
    catalog.createTable(id, simple().build(), false);
    catalog.dropTable(id, false);
    Path snapshots = dir.resolve("db.db/t/snapshot");
    Files.createDirectories(snapshots);
    Files.writeString(snapshots.resolve("snapshot-1"), "{}");
    assertThatThrownBy(() -> catalog.createTable(id, simple().build(), false))
        .isInstanceOf(CatalogException.class)
        .hasMessageContaining("holds snapshots or schemas of a dropped table");
    assertThat(dir.resolve("db.db/t/schema")).doesNotExist();
  }

  @Test
  void createsListsAndDropsDatabasesAndTables() {
    catalog.createDatabase("db", false);
    catalog.createDatabase("db2", false);
    assertThat(catalog.listDatabases()).containsExactly("db", "db2");
    assertThat(Files.isDirectory(dir.resolve("db.db"))).isTrue();

    catalog.createTable(new Identifier("db", "t"), simple().partitionKeys("p").build(), false);
    catalog.createTable(new Identifier("db", "u"), simple().build(), false);
    assertThat(catalog.listTables("db")).containsExactly("t", "u");
    assertThat(Files.exists(dir.resolve("db.db/t/schema/schema-0"))).isTrue();

    Table t = catalog.getTable("db.t");
    assertThat(t.fullName()).isEqualTo("db.t");
    assertThat(t.schema().partitionKeys()).containsExactly("p");
    assertThat(t.rowType().getFieldNames()).containsExactly("id", "p", "v");
    assertThat(t.rowType().getTypeAt(0).isNullable()).isFalse();

    catalog.dropTable(new Identifier("db", "u"), false);
    assertThat(catalog.listTables("db")).containsExactly("t");
    assertThatThrownBy(() -> catalog.dropDatabase("db", false, false))
        .hasMessageContaining("not empty");
    catalog.dropDatabase("db", false, true);
    assertThat(catalog.listDatabases()).containsExactly("db2");
  }

  @Test
  void alterTableWritesANewSchemaVersionWithTheChangedOptions() {
    catalog.createDatabase("db", false);
    Identifier id = new Identifier("db", "t");
    catalog.createTable(
        id,
        simple().primaryKey("id").option("bucket", "2").option("write-buffer-size", "8 mb").build(),
        false);
    catalog.alterTable(
        id,
        List.of(
            SchemaChange.setOption("num-sorted-run.compaction-trigger", "3"),
            SchemaChange.removeOption("write-buffer-size"),
            SchemaChange.updateComment("orders")));
    TableSchema s = catalog.getTable(id).schema();
    assertThat(s.id()).isEqualTo(1);
    assertThat(s.options())
        .containsEntry("num-sorted-run.compaction-trigger", "3")
        .containsEntry("bucket", "2")
        .doesNotContainKey("write-buffer-size");
    assertThat(s.comment()).isEqualTo("orders");
    assertThat(s.fields())
        .isEqualTo(
            TableSchema.create(simple().primaryKey("id").option("bucket", "2").build(), 0)
                .fields());

    for (SchemaChange refused :
        List.of(
            SchemaChange.setOption("merge-engine", "first-row"),
            SchemaChange.removeOption("bucket"),
            SchemaChange.setOption("num-sorted-run.compaction-trigger", "0"),
            SchemaChange.setOption("lock.enabled", "true"))) {
      assertThatThrownBy(() -> catalog.alterTable(id, List.of(refused)))
          .as("%s", refused)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(catalog.getTable(id).schema().id()).as("refused changes write nothing").isEqualTo(1);
  }

  @Test
  void existingTableIsRejectedUnlessIfNotExists() {
    catalog.createDatabase("db", false);
    Identifier id = new Identifier("db", "t");
    catalog.createTable(id, simple().build(), false);
    assertThatThrownBy(() -> catalog.createTable(id, simple().build(), false))
        .isInstanceOf(CatalogException.class)
        .hasMessageContaining("already exists");
    catalog.createTable(id, simple().build(), true); // no error
    assertThatThrownBy(() -> catalog.createDatabase("db", false))
        .hasMessageContaining("already exists");
  }

  @Test
  void badSchemasAndOptionsAreRejectedAndWriteNothing() throws IOException {
    catalog.createDatabase("db", false);
    Identifier id = new Identifier("db", "bad");
    List<Object[]> cases =
        List.of(
            new Object[] {
              simple().partitionKeys("nope").build(), "Partition key 'nope' is not a column"
            },
            new Object[] {
              simple().primaryKey("zzz").option("bucket", "2").build(),
              "Primary key 'zzz' is not a column"
            },
            new Object[] {
              simple().option("colour", "red").build(), "Unknown table option(s) [colour]"
            },
            new Object[] {
              simple().option("bucket", "0").build(), "Invalid value '0' for option 'bucket'"
            },
            new Object[] {
              simple().option("bucket", "many").build(), "Invalid value 'many' for option 'bucket'"
            },
            new Object[] {simple().option("target-file-size", "huge").build(), "target-file-size"},
            new Object[] {
              simple().option("file.compression", "brotli").build(),
              "allowed: [zstd, snappy, gzip, lz4_raw, uncompressed]"
            },
            new Object[] {
              simple().option("compaction.small-file-ratio", "2").build(), "must be > 0 and <= 1"
            },
            new Object[] {
              simple().primaryKey("id").partitionKeys("p").option("bucket", "2").build(),
              "Partition key 'p' must be part of the primary key"
            },
            new Object[] {simple().primaryKey("id").build(), "needs a fixed number of buckets"},
            new Object[] {
              simple().option("merge-engine", "partial-update").build(),
              "only to tables with a primary key"
            },
            new Object[] {simple().option("bucket-key", "id").build(), "needs 'bucket' set"},
            new Object[] {
              simple().option("bucket", "2").option("bucket-key", "x").build(),
              "Bucket key 'x' is not a column"
            });
    for (Object[] c : cases) {
      assertThatThrownBy(() -> catalog.createTable(id, (Schema) c[0], false))
          .as("case %s", c[1])
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining((String) c[1]);
    }
    assertThatThrownBy(() -> simple().column("id", DataTypes.INT()))
        .hasMessageContaining("Duplicate column name 'id'");
    assertThat(catalog.listTables("db")).isEmpty();
    try (Stream<Path> files = Files.walk(dir.resolve("db.db"))) {
      assertThat(files.filter(Files::isRegularFile).collect(Collectors.toList())).isEmpty();
    }
  }

  @Test
  void badNamesAndMissingObjectsGiveClearErrors() {
    assertThatThrownBy(() -> catalog.createDatabase("a/b", false))
        .hasMessageContaining("not valid");
    assertThatThrownBy(() -> Identifier.parse("nodot")).hasMessageContaining("database.table");
    assertThatThrownBy(() -> catalog.getTable("db.missing")).hasMessageContaining("does not exist");
    catalog.createDatabase("db", false);
    assertThatThrownBy(() -> catalog.getTable("db.missing"))
        .isInstanceOf(CatalogException.class)
        .hasMessageContaining("Table 'db.missing' does not exist");
    assertThatThrownBy(
            () -> catalog.createTable(new Identifier("nodb", "t"), simple().build(), false))
        .hasMessageContaining("Database 'nodb' does not exist");
  }
}
