package io.sediment.catalog;

import io.sediment.commit.SnapshotCommits;
import io.sediment.fs.FileIO;
import io.sediment.fs.JsonSerde;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestCache;
import io.sediment.manifest.TablePaths;
import io.sediment.schema.Schema;
import io.sediment.schema.SchemaChange;
import io.sediment.schema.TableSchema;
import io.sediment.table.Table;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

/**
 * Databases and tables as directories of a warehouse: {@code <warehouse>/<db>.db/<table>/}. A table
 * exists once its {@code schema/schema-0} exists; that file is created atomically, so two
 * concurrent creators cannot both succeed.
 */
public final class FileSystemCatalog {

  private static final String DB_SUFFIX = ".db";

  private final Path warehouse;
  private final FileIO fileIO;
  private final Clock clock;

  /** A catalog over a warehouse URI or local path (created when missing). */
  public FileSystemCatalog(String warehouse) {
    this(toPath(warehouse));
  }

  public FileSystemCatalog(Path warehouse) {
    this(warehouse, FileIO.of(warehouse), Clock.systemUTC());
  }

  private FileSystemCatalog(Path warehouse, FileIO fileIO, Clock clock) {
    // a process-wide setting every table of the catalog reads: refused before anything is created
    ManifestCache.checkConfiguration();
    this.warehouse = warehouse;
    this.fileIO = fileIO;
    this.clock = clock;
  }

  /**
   * This catalog on another clock: the tables it loads decide on time by {@code clock} ({@link
   * FileStore#clock()}), and the schema versions it writes are stamped by it. A catalog is on the
   * system clock (UTC) otherwise; tests pass a clock they move instead of waiting.
   */
  public FileSystemCatalog withClock(Clock clock) {
    return new FileSystemCatalog(warehouse, fileIO, Objects.requireNonNull(clock, "clock"));
  }

  private static Path toPath(String warehouse) {
    if (warehouse == null || warehouse.isBlank()) {
      throw new IllegalArgumentException(
          "Warehouse must be a path or URI, got '" + warehouse + "'");
    }
    if (!warehouse.contains(":/")) {
      return new Path(new File(warehouse).getAbsoluteFile().toURI());
    }
    return new Path(warehouse);
  }

  public Path warehouse() {
    return warehouse;
  }

  // ---- databases --------------------------------------------------------------------------

  public void createDatabase(String name, boolean ignoreIfExists) {
    Identifier.checkName("Database", name);
    Path dir = databasePath(name);
    try {
      if (fileIO.exists(dir)) {
        if (ignoreIfExists) {
          return;
        }
        throw new CatalogException("Database '" + name + "' already exists");
      }
      fileIO.mkdirs(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create database '" + name + "'", e);
    }
  }

  public boolean databaseExists(String name) {
    try {
      return fileIO.exists(databasePath(name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public List<String> listDatabases() {
    List<String> out = new ArrayList<>();
    try {
      for (FileStatus st : fileIO.list(warehouse)) {
        String n = st.getPath().getName();
        if (st.isDir() && n.endsWith(DB_SUFFIX)) {
          out.add(n.substring(0, n.length() - DB_SUFFIX.length()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list databases of " + warehouse, e);
    }
    out.sort(null);
    return out;
  }

  /** Drops a database; it must be empty unless {@code cascade}. */
  public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade) {
    Identifier.checkName("Database", name);
    if (!databaseExists(name)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new CatalogException("Database '" + name + "' does not exist");
    }
    if (!cascade && !listTables(name).isEmpty()) {
      throw new CatalogException(
          "Database '"
              + name
              + "' is not empty (tables "
              + listTables(name)
              + "); drop with cascade");
    }
    try {
      fileIO.delete(databasePath(name), true);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot drop database '" + name + "'", e);
    }
  }

  // ---- tables -----------------------------------------------------------------------------

  public List<String> listTables(String database) {
    requireDatabase(database);
    List<String> out = new ArrayList<>();
    try {
      for (FileStatus st : fileIO.list(databasePath(database))) {
        if (st.isDir() && fileIO.exists(new TablePaths(st.getPath()).schema(0))) {
          out.add(st.getPath().getName());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list tables of '" + database + "'", e);
    }
    out.sort(null);
    return out;
  }

  public boolean tableExists(Identifier id) {
    try {
      return fileIO.exists(new TablePaths(tablePath(id)).schema(0));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether {@code dir} holds a file whose name starts with {@code prefix}. */
  private boolean holds(Path dir, String prefix) throws IOException {
    for (FileStatus f : fileIO.list(dir)) {
      if (f.getPath().getName().startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Creates a table. The schema is validated first (columns, keys, options); nothing is written
   * when it is refused.
   */
  public void createTable(Identifier id, Schema schema, boolean ignoreIfExists) {
    requireDatabase(id.database());
    TableSchema tableSchema = TableSchema.create(schema, clock.millis());
    TablePaths paths = new TablePaths(tablePath(id));
    try {
      if (fileIO.exists(paths.schema(0))) {
        if (ignoreIfExists) {
          return;
        }
        throw new CatalogException("Table '" + id + "' already exists");
      }
      if ((holds(paths.snapshotDir(), "snapshot-") || holds(paths.schemaDir(), "schema-"))
          && !fileIO.exists(paths.schema(0))) { // else created meanwhile: the exclusive create says
        // A table dropped while a job still wrote to it: its committer recreated the directory.
        // A new table there would read those snapshots' files with its own columns.
        throw new CatalogException(
            "Cannot create table '"
                + id
                + "': "
                + paths.root()
                + " holds snapshots or schemas of a dropped table (a job still writing to it when"
                + " it was dropped?). Stop that job and delete the directory first");
      }
      fileIO.mkdirs(paths.schemaDir());
      // Under the table's commit lock when its options configure one (object stores).
      boolean created =
          SnapshotCommits.tryCreateExclusive(
              new FileStore(fileIO, paths.root(), tableSchema, tableSchema.tableOptions())
                  .withClock(clock),
              paths.schema(0),
              JsonSerde.toJson(tableSchema).getBytes(StandardCharsets.UTF_8));
      if (!created && !ignoreIfExists) {
        throw new CatalogException("Table '" + id + "' already exists");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create table '" + id + "'", e);
    }
  }

  /**
   * Applies {@code changes} to the table's schema as a new schema version ({@code
   * schema/schema-<id+1>}, created exclusively, like a snapshot): readers, writers and compactions
   * that load the table from then on use it; a job already running keeps the version it loaded, and
   * every file it writes carries that version's id, which describes it (files are read by field id:
   * docs/spec.md section 3.1). Nothing is written when a change is refused, or when another ALTER
   * published the same version first.
   */
  public void alterTable(Identifier id, List<SchemaChange> changes) {
    Table table = getTable(id);
    TableSchema current = table.schema();
    TableSchema next = current.apply(changes, clock.millis());
    TablePaths paths = new TablePaths(tablePath(id));
    try {
      boolean created =
          SnapshotCommits.tryCreateExclusive(
              table.store(),
              paths.schema(next.id()),
              JsonSerde.toJson(next).getBytes(StandardCharsets.UTF_8));
      if (!created) {
        throw new CatalogException(
            "Another ALTER of table '"
                + id
                + "' published schema "
                + next.id()
                + " first; nothing was changed: run the statement again");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot alter table '" + id + "'", e);
    }
  }

  /**
   * Renames table {@code from} to {@code to} (same database) by renaming its directory, which on
   * local and HDFS-like file systems is one atomic step; everything of the table (snapshots,
   * manifests, data, consumers) moves with it. Jobs that write or compact the table by its old name
   * must be stopped first. Refused on object stores, where a directory rename copies every file one
   * by one, and when {@code to} exists.
   */
  public void renameTable(Identifier from, Identifier to) {
    if (!from.database().equals(to.database())) {
      throw new CatalogException(
          "Renaming '"
              + from
              + "' to '"
              + to
              + "' would move it to another database; not supported");
    }
    if (!tableExists(from)) {
      throw new CatalogException(missingTable(from));
    }
    try {
      if (tableExists(to) || fileIO.exists(tablePath(to))) {
        // a leftover directory too: HDFS would move the table inside it
        throw new CatalogException(
            "Cannot rename '" + from + "': table '" + to + "' (or its directory) already exists");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot rename table '" + from + "'", e);
    }
    if (fileIO.isObjectStore()) {
      throw new CatalogException(
          "Renaming table '"
              + from
              + "' is not supported on an object store ("
              + warehouse
              + "): a directory rename there copies every file, not in one step");
    }
    try {
      if (!fileIO.rename(tablePath(from), tablePath(to))) {
        throw new CatalogException(
            "Renaming table '"
                + from
                + "' to '"
                + to
                + "' failed: the file system did not move it");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot rename table '" + from + "'", e);
    }
  }

  public Table getTable(Identifier id) {
    TablePaths paths = new TablePaths(tablePath(id));
    TableSchema schema;
    try {
      schema =
          JsonSerde.fromJson(
              fileIO.readUtf8(paths.schema(latestSchemaId(paths))), TableSchema.class);
    } catch (FileNotFoundException e) {
      throw new CatalogException(missingTable(id));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the schema of '" + id + "'", e);
    }
    return new Table(
        id.fullName(),
        new FileStore(fileIO, paths.root(), schema, schema.tableOptions()).withClock(clock));
  }

  /** Why {@code id} cannot be found: a wrong warehouse or database path is the usual cause. */
  private String missingTable(Identifier id) {
    try {
      if (!fileIO.exists(warehouse)) {
        return "Table '" + id + "' does not exist: the warehouse " + warehouse + " does not exist";
      }
      if (!fileIO.exists(databasePath(id.database()))) {
        return "Table '"
            + id
            + "' does not exist: the warehouse "
            + warehouse
            + " has no database '"
            + id.database()
            + "'";
      }
    } catch (IOException e) {
      // cannot tell why: the plain message below still names the table and the warehouse
    }
    return "Table '" + id + "' does not exist in " + warehouse;
  }

  public Table getTable(String fullName) {
    return getTable(Identifier.parse(fullName));
  }

  private long latestSchemaId(TablePaths paths) throws IOException {
    long max = -1;
    for (FileStatus st : fileIO.list(paths.schemaDir())) {
      String n = st.getPath().getName();
      if (n.startsWith("schema-")) {
        try {
          max = Math.max(max, Long.parseLong(n.substring("schema-".length())));
        } catch (NumberFormatException ignored) {
          // not a schema file
        }
      }
    }
    if (max < 0) {
      throw new FileNotFoundException(paths.schemaDir().toString());
    }
    return max;
  }

  public void dropTable(Identifier id, boolean ignoreIfNotExists) {
    if (!tableExists(id)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new CatalogException("Table '" + id + "' does not exist");
    }
    try {
      fileIO.delete(tablePath(id), true);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot drop table '" + id + "'", e);
    }
  }

  public Path databasePath(String database) {
    return new Path(warehouse, database + DB_SUFFIX);
  }

  public Path tablePath(Identifier id) {
    return new Path(databasePath(id.database()), id.table());
  }

  private void requireDatabase(String database) {
    Identifier.checkName("Database", database);
    if (!databaseExists(database)) {
      throw new CatalogException(missingDatabase(database));
    }
  }

  /** Why {@code database} cannot be found, naming the warehouse when that is missing too. */
  public String missingDatabase(String database) {
    try {
      if (!fileIO.exists(warehouse)) {
        return "Database '"
            + database
            + "' does not exist: the warehouse "
            + warehouse
            + " does not exist";
      }
    } catch (IOException e) {
      // cannot tell: the message below still names the database and the warehouse
    }
    return "Database '" + database + "' does not exist in " + warehouse;
  }
}
