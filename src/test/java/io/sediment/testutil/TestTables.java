package io.sediment.testutil;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.commit.CommitMessage;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableRead;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;

/** Helpers for tests: tables in a temporary warehouse, writing and reading rows. */
public final class TestTables {

  private TestTables() {}

  public static FileSystemCatalog catalog(java.nio.file.Path dir) {
    FileSystemCatalog catalog = new FileSystemCatalog(dir.toString());
    catalog.createDatabase("db", true);
    return catalog;
  }

  /**
   * A catalog with database {@code db} on the {@link FaultyFileSystem} over {@code dir}: faults and
   * counts can be set on what its tables do.
   */
  public static FileSystemCatalog faultyCatalog(java.nio.file.Path dir) {
    FileSystemCatalog catalog = new FileSystemCatalog(FaultyFileSystem.uri(dir));
    catalog.createDatabase("db", true);
    return catalog;
  }

  public static Table create(FileSystemCatalog catalog, String name, Schema schema) {
    Identifier id = new Identifier("db", name);
    catalog.createTable(id, schema, false);
    return catalog.getTable(id);
  }

  /** {@code (id BIGINT, p STRING)} partitioned by {@code p}, to add options to. */
  public static Schema.Builder idPartitionSchema() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT())
        .column("p", DataTypes.STRING())
        .partitionKeys("p");
  }

  /**
   * {@code (id BIGINT NOT NULL, p INT NOT NULL, v STRING)} partitioned by {@code p}, to add keys
   * and options to.
   */
  public static Schema.Builder idIntPartitionValueSchema() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("p", DataTypes.INT().notNull())
        .column("v", DataTypes.STRING())
        .partitionKeys("p");
  }

  /**
   * The schema most tests use, {@code (id BIGINT NOT NULL, v STRING)}, to add keys, partitions or
   * options to.
   */
  public static Schema.Builder idValueSchema() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("v", DataTypes.STRING());
  }

  /** Writes the rows as one batch commit; returns the snapshot ids made. */
  public static List<Long> writeBatch(Table table, List<? extends RowData> rows) {
    WriteBuilder wb = table.newBatchWriteBuilder();
    return wb.newCommit().commit(prepare(wb, rows));
  }

  /** Writes the rows with a new writer of {@code builder}: the messages to commit. */
  public static List<CommitMessage> prepare(WriteBuilder builder, List<? extends RowData> rows) {
    try (TableWrite write = builder.newWrite()) {
      for (RowData r : rows) {
        write.write(r);
      }
      return write.prepareCommit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static List<RowData> readAll(Table table) {
    try {
      TableRead read = table.newReadBuilder().newRead();
      return read.readAll(table.newReadBuilder().newScan().plan().splits());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Rows rendered as strings like {@code +I(1,a)}, for order-insensitive comparison. */
  public static List<String> toStrings(RowType type, List<RowData> rows) {
    List<String> out = new ArrayList<>();
    for (RowData r : rows) {
      out.add(render(type, r));
    }
    return out;
  }

  public static String render(RowType type, RowData r) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < type.getFieldCount(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      Object v = RowData.createFieldGetter(type.getTypeAt(i), i).getFieldOrNull(r);
      sb.append(v instanceof byte[] ? java.util.Arrays.toString((byte[]) v) : String.valueOf(v));
    }
    return sb.append(')').toString();
  }

  public static GenericRowData row(Object... values) {
    Object[] converted = new Object[values.length];
    for (int i = 0; i < values.length; i++) {
      converted[i] =
          values[i] instanceof String ? StringData.fromString((String) values[i]) : values[i];
    }
    return GenericRowData.of(converted);
  }

  /** Every regular data file under a table directory (Parquet files outside metadata dirs). */
  public static List<java.nio.file.Path> dataFiles(java.nio.file.Path tableDir) {
    try (Stream<java.nio.file.Path> s = Files.walk(tableDir)) {
      return s.filter(p -> p.getFileName().toString().startsWith("data-"))
          .sorted()
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Metadata a failed or abandoned write left behind: files under {@code manifest/} and {@code
   * index/} that no listed snapshot uses (its manifest lists, their manifests, its changelog list
   * and manifests, its index manifest and deletion vectors), and temporary files in {@code
   * snapshot/}. Empty after any failure that was not a crash: a failed write cleans up after
   * itself.
   */
  public static Set<String> unreferencedMetadata(Table table, java.nio.file.Path tableDir) {
    Set<String> used = new HashSet<>();
    SnapshotManager sm = table.snapshotManager();
    IndexManifest index = new IndexManifest(table.store().fileIO(), table.store().paths());
    try {
      for (long id : sm.listIds()) {
        Snapshot s = sm.snapshot(id);
        used.add(s.baseManifestList());
        used.add(s.deltaManifestList());
        table.store().newScan().manifests(s).forEach(m -> used.add(m.fileName()));
        if (s.changelogManifestList() != null) {
          used.add(s.changelogManifestList());
          table
              .store()
              .manifestList()
              .read(s.changelogManifestList())
              .forEach(m -> used.add(m.fileName()));
        }
        if (s.indexManifest() != null) {
          used.add(s.indexManifest());
          index.read(s.indexManifest()).forEach(e -> used.add(e.deletionFile().dvFile()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<String> left = new TreeSet<>();
    for (String dirName : List.of("manifest", "index", "snapshot")) {
      java.nio.file.Path d = tableDir.resolve(dirName);
      if (!Files.exists(d)) {
        continue;
      }
      try (Stream<java.nio.file.Path> s = Files.list(d)) {
        for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) s::iterator) {
          String name = p.getFileName().toString();
          boolean abandoned =
              dirName.equals("snapshot") ? name.endsWith(".tmp") : !used.contains(name);
          if (abandoned) {
            left.add(dirName + "/" + name);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return left;
  }
}
