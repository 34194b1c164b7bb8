package io.sediment.faultmatrix;

import static io.sediment.testutil.TestTables.row;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.commit.CommitMessage;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.types.RowKind;

/**
 * Table {@code db.t} of one {@link TableKind} in a warehouse of its own, reached through the {@code
 * faulty:} file system, with the {@link Model} of what has been committed to it. {@link #table()}
 * opens it afresh every time (a new catalog, as a restarted process would).
 */
final class MatrixTable {

  static final String[] PARTITIONS = {"a", "b"};
  static final int ROWS_PER_PARTITION = 5;

  final TableKind kind;
  final Path warehouse;
  final Model model;

  private MatrixTable(TableKind kind, Path warehouse, Model model) {
    this.kind = kind;
    this.warehouse = warehouse;
    this.model = model;
  }

  /**
   * Creates the table under {@code dir} (warehouse {@code dir/wh}, local cache {@code dir/cache}).
   */
  static MatrixTable create(TableKind kind, Path dir) {
    return create(kind, dir, Map.of());
  }

  /** The same, with extra table options. */
  static MatrixTable create(TableKind kind, Path dir, Map<String, String> options) {
    Path warehouse = dir.resolve("wh");
    FileSystemCatalog catalog = catalog(warehouse);
    catalog.createTable(
        new Identifier("db", "t"), kind.schema(dir.resolve("cache"), options), false);
    return new MatrixTable(kind, warehouse, new Model());
  }

  /** Creates the table and commits {@code batches} batches ({@link #batch}). */
  static MatrixTable withBatches(TableKind kind, Path dir, int batches) {
    return withBatches(kind, dir, batches, Map.of());
  }

  static MatrixTable withBatches(
      TableKind kind, Path dir, int batches, Map<String, String> options) {
    MatrixTable t = create(kind, dir, options);
    for (int i = 0; i < batches; i++) {
      t.write(i);
    }
    return t;
  }

  private static FileSystemCatalog catalog(Path warehouse) {
    FileSystemCatalog catalog = TestTables.faultyCatalog(warehouse);
    return catalog;
  }

  /** The table, opened afresh. */
  Table table() {
    return catalog(warehouse).getTable(new Identifier("db", "t"));
  }

  /** The warehouse URI, for jobs. */
  String warehouseUri() {
    return FaultyFileSystem.uri(warehouse);
  }

  Path tableDir() {
    return warehouse.resolve("db.db").resolve("t");
  }

  /**
   * A copy of this table and its model under {@code dir}: the same files byte for byte, so commit
   * messages prepared on this table are valid for the copy. The local cache is shared.
   */
  MatrixTable copyTo(Path dir) {
    Path target = dir.resolve("wh");
    try (Stream<Path> s = Files.walk(warehouse)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path to = target.resolve(warehouse.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else {
          Files.copy(p, to);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new MatrixTable(kind, target, model.copy());
  }

  /**
   * Batch {@code n}: five new rows per partition; on primary-key tables from the second batch on
   * also an update of key 0 and of a key of the previous batch, and a delete of another.
   */
  List<Model.Change> batch(int n) {
    List<Model.Change> out = new ArrayList<>();
    for (String p : PARTITIONS) {
      for (int i = 0; i < ROWS_PER_PARTITION; i++) {
        long id = (long) n * ROWS_PER_PARTITION + i;
        out.add(upsert(id, p, "v" + n));
      }
      if (kind.hasPrimaryKey() && n > 0) {
        long previous = (long) (n - 1) * ROWS_PER_PARTITION;
        out.add(upsert(0, p, "u" + n));
        out.add(upsert(previous + 1, p, "u" + n));
        out.add(new Model.Change(key(previous + 2, p), previous + 2, p, "v" + (n - 1), true));
      }
    }
    return out;
  }

  private Model.Change upsert(long id, String p, String v) {
    return new Model.Change(key(id, p), id, p, v, false);
  }

  /** Append tables: ids are never reused, so the key is unique there too. */
  private static String key(long id, String p) {
    return p + "/" + id;
  }

  /** Writes the changes into messages without committing them. */
  List<CommitMessage> prepare(Table t, List<Model.Change> changes, String commitUser) {
    WriteBuilder wb = t.newStreamWriteBuilder().withCommitUser(commitUser);
    try (TableWrite w = wb.newWrite()) {
      for (Model.Change c : changes) {
        w.write(toRow(c));
      }
      return w.prepareCommit();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes and commits batch {@code n} in one batch commit; the model follows. */
  void write(int n) {
    List<Model.Change> changes = batch(n);
    List<GenericRowData> rows = new ArrayList<>();
    for (Model.Change c : changes) {
      rows.add(toRow(c));
    }
    TestTables.writeBatch(table(), rows);
    model.apply(changes);
  }

  static GenericRowData toRow(Model.Change c) {
    GenericRowData r = row(c.id(), c.p(), c.v());
    if (c.delete()) {
      r.setRowKind(RowKind.DELETE);
    }
    return r;
  }
}
