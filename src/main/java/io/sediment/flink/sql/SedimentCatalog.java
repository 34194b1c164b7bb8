package io.sediment.flink.sql;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.flink.sql.procedures.CompactDatabaseProcedure;
import io.sediment.flink.sql.procedures.CompactProcedure;
import io.sediment.flink.sql.procedures.ConsumerProcedures;
import io.sediment.flink.sql.procedures.ExpirePartitionsProcedure;
import io.sediment.flink.sql.procedures.ExpireSnapshotsProcedure;
import io.sediment.flink.sql.procedures.RemoveOrphanFilesProcedure;
import io.sediment.flink.sql.procedures.RollbackProcedures;
import io.sediment.flink.sql.procedures.TagProcedures;
import io.sediment.schema.ScanOptions;
import io.sediment.schema.SchemaChange;
import io.sediment.systable.SystemTables;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.catalog.AbstractCatalog;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.CatalogFunction;
import org.apache.flink.table.catalog.CatalogPartition;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.TableChange;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.FunctionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionNotExistException;
import org.apache.flink.table.catalog.exceptions.ProcedureNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotPartitionedException;
import org.apache.flink.table.catalog.stats.CatalogColumnStatistics;
import org.apache.flink.table.catalog.stats.CatalogTableStatistics;
import org.apache.flink.table.expressions.Expression;
import org.apache.flink.table.factories.Factory;
import org.apache.flink.table.procedures.Procedure;

/**
 * A Flink catalog over a Sediment warehouse: databases and tables are those of a {@link
 * FileSystemCatalog}. Tables are created from Flink DDL (physical columns, {@code PRIMARY KEY ...
 * NOT ENFORCED}, {@code PARTITIONED BY}, options in {@code WITH} validated like {@link
 * io.sediment.schema.TableOptions}); reads and writes go through {@link SedimentTableFactory}. The
 * virtual database {@code sys} holds the procedures (compaction, expiry of snapshots and
 * partitions, orphan removal, consumers, tags; {@code SHOW PROCEDURES} lists them).
 */
public final class SedimentCatalog extends AbstractCatalog {

  /** The read-only database holding the procedures. */
  public static final String SYSTEM_DATABASE = "sys";

  private final String warehouse;
  private final FileSystemCatalog catalog;
  private final Map<String, Function<FileSystemCatalog, Procedure>> procedures;

  public SedimentCatalog(String name, String warehouse, String defaultDatabase) {
    super(name, defaultDatabase);
    this.warehouse = warehouse;
    this.catalog = new FileSystemCatalog(warehouse);
    Map<String, Function<FileSystemCatalog, Procedure>> p = new LinkedHashMap<>();
    p.put(CompactProcedure.NAME, CompactProcedure::new);
    p.put(CompactDatabaseProcedure.NAME, CompactDatabaseProcedure::new);
    p.put(ExpireSnapshotsProcedure.NAME, ExpireSnapshotsProcedure::new);
    p.put(ExpirePartitionsProcedure.NAME, ExpirePartitionsProcedure::new);
    p.put(RemoveOrphanFilesProcedure.NAME, RemoveOrphanFilesProcedure::new);
    p.put(ConsumerProcedures.Reset.NAME, ConsumerProcedures.Reset::new);
    p.put(ConsumerProcedures.Clear.NAME, ConsumerProcedures.Clear::new);
    p.put(TagProcedures.Create.NAME, TagProcedures.Create::new);
    p.put(TagProcedures.CreateFromTimestamp.NAME, TagProcedures.CreateFromTimestamp::new);
    p.put(TagProcedures.CreateFromWatermark.NAME, TagProcedures.CreateFromWatermark::new);
    p.put(TagProcedures.Delete.NAME, TagProcedures.Delete::new);
    p.put(TagProcedures.Expire.NAME, TagProcedures.Expire::new);
    p.put(TagProcedures.Rename.NAME, TagProcedures.Rename::new);
    p.put(TagProcedures.Replace.NAME, TagProcedures.Replace::new);
    p.put(RollbackProcedures.To.NAME, RollbackProcedures.To::new);
    p.put(RollbackProcedures.ToTimestamp.NAME, RollbackProcedures.ToTimestamp::new);
    p.put(RollbackProcedures.ToWatermark.NAME, RollbackProcedures.ToWatermark::new);
    this.procedures = Collections.unmodifiableMap(p);
  }

  public FileSystemCatalog fileSystemCatalog() {
    return catalog;
  }

  public String warehouse() {
    return warehouse;
  }

  @Override
  public void open() {
    if (!SYSTEM_DATABASE.equals(getDefaultDatabase())) {
      catalog.createDatabase(getDefaultDatabase(), true);
    }
  }

  @Override
  public void close() {}

  @Override
  public Optional<Factory> getFactory() {
    return Optional.of(new SedimentTableFactory(catalog));
  }

  // ---- databases --------------------------------------------------------------------------

  @Override
  public List<String> listDatabases() {
    List<String> out = new ArrayList<>(catalog.listDatabases());
    if (!out.contains(SYSTEM_DATABASE)) {
      out.add(SYSTEM_DATABASE);
    }
    out.sort(null);
    return out;
  }

  @Override
  public CatalogDatabase getDatabase(String name) throws DatabaseNotExistException {
    if (!databaseExists(name)) {
      throw new DatabaseNotExistException(getName(), name);
    }
    String comment = SYSTEM_DATABASE.equals(name) ? "Sediment procedures" : null;
    return new CatalogDatabaseImpl(new HashMap<>(), comment);
  }

  @Override
  public boolean databaseExists(String name) {
    return SYSTEM_DATABASE.equals(name) || (validName(name) && catalog.databaseExists(name));
  }

  private static boolean validName(String name) {
    try {
      new Identifier(name, "x");
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  @Override
  public void createDatabase(String name, CatalogDatabase database, boolean ignoreIfExists)
      throws DatabaseAlreadyExistException {
    if (SYSTEM_DATABASE.equals(name)) {
      throw new CatalogException("Database name 'sys' is reserved for Sediment procedures");
    }
    if (database != null && !database.getProperties().isEmpty()) {
      throw new CatalogException(
          "Sediment databases take no properties, got " + database.getProperties().keySet());
    }
    if (database != null && database.getComment() != null && !database.getComment().isEmpty()) {
      // it would be dropped unseen: databases are directories (Paimon refuses it too)
      throw new CatalogException(
          "Sediment databases take no comment, got '" + database.getComment() + "'");
    }
    if (catalog.databaseExists(name)) {
      if (ignoreIfExists) {
        return;
      }
      throw new DatabaseAlreadyExistException(getName(), name);
    }
    run(() -> catalog.createDatabase(name, ignoreIfExists));
  }

  @Override
  public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade)
      throws DatabaseNotExistException, DatabaseNotEmptyException {
    if (SYSTEM_DATABASE.equals(name)) {
      throw new CatalogException("Database 'sys' cannot be dropped");
    }
    if (!databaseExists(name)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new DatabaseNotExistException(getName(), name);
    }
    if (!cascade && !catalog.listTables(name).isEmpty()) {
      throw new DatabaseNotEmptyException(getName(), name);
    }
    run(() -> catalog.dropDatabase(name, ignoreIfNotExists, cascade));
  }

  @Override
  public void alterDatabase(String name, CatalogDatabase newDatabase, boolean ignoreIfNotExists) {
    throw new UnsupportedOperationException("ALTER DATABASE is not supported by Sediment");
  }

  // ---- tables -----------------------------------------------------------------------------

  @Override
  public List<String> listTables(String databaseName) throws DatabaseNotExistException {
    if (SYSTEM_DATABASE.equals(databaseName)) {
      return List.of();
    }
    if (!databaseExists(databaseName)) {
      throw new DatabaseNotExistException(getName(), databaseName);
    }
    return catalog.listTables(databaseName);
  }

  @Override
  public List<String> listViews(String databaseName) throws DatabaseNotExistException {
    if (!databaseExists(databaseName)) {
      throw new DatabaseNotExistException(getName(), databaseName);
    }
    return List.of();
  }

  /** The system table a name like {@code orders$snapshots} reads, if it is one. */
  static Optional<SystemTables.SystemTable> systemTable(String objectName) {
    int i = objectName.lastIndexOf(SystemTables.SEPARATOR);
    return i <= 0 ? Optional.empty() : SystemTables.of(objectName.substring(i + 1));
  }

  /** The table of a system table's name: {@code orders} of {@code orders$snapshots}. */
  static String baseTable(String objectName) {
    return objectName.substring(0, objectName.lastIndexOf(SystemTables.SEPARATOR));
  }

  @Override
  public CatalogBaseTable getTable(ObjectPath path) throws TableNotExistException {
    if (!tableExists(path)) {
      throw new TableNotExistException(getName(), path);
    }
    Optional<SystemTables.SystemTable> system = systemTable(path.getObjectName());
    if (system.isPresent()) {
      return CatalogTable.newBuilder()
          .schema(Schema.newBuilder().fromRowDataType(system.get().type()).build())
          .comment("System table " + system.get().name() + " of " + baseTable(path.getObjectName()))
          .options(Map.of())
          .build();
    }
    Table table = catalog.getTable(toIdentifier(path));
    return SchemaTranslation.toCatalogTable(table.schema());
  }

  /**
   * {@code FOR SYSTEM_TIME AS OF}: the table read as of {@code timestamp}, that is with {@code
   * scan.timestamp-millis} set (the newest snapshot committed at or before it). The schema is the
   * table's current one.
   */
  @Override
  public CatalogBaseTable getTable(ObjectPath path, long timestamp) throws TableNotExistException {
    CatalogTable table = (CatalogTable) getTable(path);
    Map<String, String> options = new LinkedHashMap<>(table.getOptions());
    options.put(ScanOptions.SCAN_TIMESTAMP_MILLIS.key(), String.valueOf(timestamp));
    return table.copy(options);
  }

  @Override
  public boolean tableExists(ObjectPath path) {
    if (SYSTEM_DATABASE.equals(path.getDatabaseName())) {
      return false;
    }
    if (systemTable(path.getObjectName()).isPresent()) {
      return tableExists(new ObjectPath(path.getDatabaseName(), baseTable(path.getObjectName())));
    }
    try {
      return catalog.tableExists(toIdentifier(path));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  @Override
  public void dropTable(ObjectPath path, boolean ignoreIfNotExists) throws TableNotExistException {
    if (!tableExists(path)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new TableNotExistException(getName(), path);
    }
    run(() -> catalog.dropTable(toIdentifier(path), ignoreIfNotExists));
  }

  /** {@code ALTER TABLE db.t RENAME TO db.u}: see {@link FileSystemCatalog#renameTable}. */
  @Override
  public void renameTable(ObjectPath path, String newName, boolean ignoreIfNotExists)
      throws TableNotExistException {
    if (!tableExists(path)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new TableNotExistException(getName(), path);
    }
    run(
        () ->
            catalog.renameTable(
                toIdentifier(path), new Identifier(path.getDatabaseName(), newName)));
  }

  @Override
  public void createTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfExists)
      throws TableAlreadyExistException, DatabaseNotExistException {
    if (SYSTEM_DATABASE.equals(path.getDatabaseName())) {
      throw new CatalogException("Tables cannot be created in the 'sys' database");
    }
    if (!databaseExists(path.getDatabaseName())) {
      throw new DatabaseNotExistException(getName(), path.getDatabaseName());
    }
    if (tableExists(path)) {
      if (ignoreIfExists) {
        return;
      }
      throw new TableAlreadyExistException(getName(), path);
    }
    io.sediment.schema.Schema schema = SchemaTranslation.toSedimentSchema(table);
    run(() -> catalog.createTable(toIdentifier(path), schema, ignoreIfExists));
  }

  @Override
  public void alterTable(ObjectPath path, CatalogBaseTable newTable, boolean ignoreIfNotExists) {
    throw new UnsupportedOperationException(
        "This form of ALTER TABLE is not supported by Sediment yet; ALTER TABLE ... SET (...) and"
            + " RESET (...) of table options are");
  }

  /**
   * {@code ALTER TABLE}: option changes ({@code SET}, {@code RESET}), column changes ({@code ADD},
   * {@code RENAME ... TO}, {@code DROP}, {@code MODIFY} type, nullability, comment or position) and
   * the table comment, as one new schema version ({@link FileSystemCatalog#alterTable}, rules in
   * {@code TableSchema#apply}). Watermarks, constraints, distributions and computed or metadata
   * columns are refused with a clear error.
   */
  @Override
  public void alterTable(
      ObjectPath path,
      CatalogBaseTable newTable,
      List<TableChange> tableChanges,
      boolean ignoreIfNotExists)
      throws TableNotExistException {
    if (!tableExists(path)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new TableNotExistException(getName(), path);
    }
    List<SchemaChange> changes = new ArrayList<>();
    for (TableChange change : tableChanges) {
      changes.add(SchemaTranslation.toSchemaChange(path, change));
    }
    run(() -> catalog.alterTable(toIdentifier(path), changes));
  }

  static Identifier toIdentifier(ObjectPath path) {
    return new Identifier(path.getDatabaseName(), path.getObjectName());
  }

  // ---- procedures -------------------------------------------------------------------------

  @Override
  public List<String> listProcedures(String dbName) throws DatabaseNotExistException {
    if (!databaseExists(dbName)) {
      throw new DatabaseNotExistException(getName(), dbName);
    }
    // Listed in every database, as Paimon does, so that a plain SHOW PROCEDURES shows them; they
    // are called as sys.<name>.
    return new ArrayList<>(procedures.keySet());
  }

  @Override
  public Procedure getProcedure(ObjectPath path) throws ProcedureNotExistException {
    Function<FileSystemCatalog, Procedure> p =
        SYSTEM_DATABASE.equals(path.getDatabaseName())
            ? procedures.get(path.getObjectName())
            : null;
    if (p == null) {
      throw new ProcedureNotExistException(getName(), path);
    }
    return p.apply(catalog);
  }

  // ---- partitions (listed and dropped through TablePartitions); no functions or statistics ----

  @Override
  public List<CatalogPartitionSpec> listPartitions(ObjectPath path)
      throws TableNotExistException, TableNotPartitionedException {
    return TablePartitions.of(partitionedTable(path));
  }

  private Table partitionedTable(ObjectPath path)
      throws TableNotExistException, TableNotPartitionedException {
    if (!tableExists(path)) {
      throw new TableNotExistException(getName(), path);
    }
    Table table = catalog.getTable(toIdentifier(path));
    if (table.schema().partitionKeys().isEmpty()) {
      throw new TableNotPartitionedException(getName(), path);
    }
    return table;
  }

  @Override
  public List<CatalogPartitionSpec> listPartitions(ObjectPath path, CatalogPartitionSpec spec)
      throws TableNotExistException, TableNotPartitionedException {
    Table table = partitionedTable(path);
    try {
      return TablePartitions.matching(table, spec);
    } catch (IllegalArgumentException e) {
      throw new CatalogException(e.getMessage(), e);
    }
  }

  /** All partitions: Sediment prunes partitions itself through filter pushdown. */
  @Override
  public List<CatalogPartitionSpec> listPartitionsByFilter(
      ObjectPath path, List<Expression> filters)
      throws TableNotExistException, TableNotPartitionedException {
    return listPartitions(path);
  }

  @Override
  public CatalogPartition getPartition(ObjectPath path, CatalogPartitionSpec spec)
      throws PartitionNotExistException {
    if (!partitionExists(path, spec)) {
      throw new PartitionNotExistException(getName(), path, spec);
    }
    return new org.apache.flink.table.catalog.CatalogPartitionImpl(new HashMap<>(), null);
  }

  @Override
  public boolean partitionExists(ObjectPath path, CatalogPartitionSpec spec) {
    try {
      return !listPartitions(path, spec).isEmpty();
    } catch (TableNotExistException | TableNotPartitionedException e) {
      return false;
    }
  }

  @Override
  public void createPartition(
      ObjectPath path,
      CatalogPartitionSpec spec,
      CatalogPartition partition,
      boolean ignoreIfExists) {
    throw new UnsupportedOperationException("Partitions are created by writing rows");
  }

  /**
   * {@code ALTER TABLE t DROP [IF EXISTS] PARTITION (k = v, ...)}, as in Paimon: one OVERWRITE
   * snapshot that removes every live file of the partitions the spec matches (a spec of some of the
   * partition columns matches every partition with those values). Flink calls it once per {@code
   * PARTITION (...)} of the statement.
   */
  @Override
  public void dropPartition(ObjectPath path, CatalogPartitionSpec spec, boolean ignoreIfNotExists) {
    try {
      TablePartitions.drop(partitionedTable(path), spec, ignoreIfNotExists);
    } catch (TableNotExistException | TableNotPartitionedException e) {
      throw new CatalogException(e.getMessage(), e);
    }
  }

  @Override
  public void alterPartition(
      ObjectPath path,
      CatalogPartitionSpec spec,
      CatalogPartition partition,
      boolean ignoreIfNotExists) {
    throw new UnsupportedOperationException("Partitions have no properties in Sediment");
  }

  @Override
  public List<String> listFunctions(String dbName) throws DatabaseNotExistException {
    if (!databaseExists(dbName)) {
      throw new DatabaseNotExistException(getName(), dbName);
    }
    return List.of();
  }

  @Override
  public CatalogFunction getFunction(ObjectPath path) throws FunctionNotExistException {
    throw new FunctionNotExistException(getName(), path);
  }

  @Override
  public boolean functionExists(ObjectPath path) {
    return false;
  }

  @Override
  public void createFunction(ObjectPath path, CatalogFunction function, boolean ignoreIfExists) {
    throw new UnsupportedOperationException("Sediment catalogs hold no functions");
  }

  @Override
  public void alterFunction(
      ObjectPath path, CatalogFunction newFunction, boolean ignoreIfNotExists) {
    throw new UnsupportedOperationException("Sediment catalogs hold no functions");
  }

  @Override
  public void dropFunction(ObjectPath path, boolean ignoreIfNotExists) {
    throw new UnsupportedOperationException("Sediment catalogs hold no functions");
  }

  @Override
  public CatalogTableStatistics getTableStatistics(ObjectPath path) {
    return CatalogTableStatistics.UNKNOWN;
  }

  @Override
  public CatalogColumnStatistics getTableColumnStatistics(ObjectPath path) {
    return CatalogColumnStatistics.UNKNOWN;
  }

  @Override
  public CatalogTableStatistics getPartitionStatistics(ObjectPath path, CatalogPartitionSpec spec) {
    return CatalogTableStatistics.UNKNOWN;
  }

  @Override
  public CatalogColumnStatistics getPartitionColumnStatistics(
      ObjectPath path, CatalogPartitionSpec spec) {
    return CatalogColumnStatistics.UNKNOWN;
  }

  @Override
  public void alterTableStatistics(ObjectPath path, CatalogTableStatistics s, boolean ignore) {
    throw new UnsupportedOperationException("Sediment keeps statistics in its manifests");
  }

  @Override
  public void alterTableColumnStatistics(
      ObjectPath path, CatalogColumnStatistics s, boolean ignore) {
    throw new UnsupportedOperationException("Sediment keeps statistics in its manifests");
  }

  @Override
  public void alterPartitionStatistics(
      ObjectPath path, CatalogPartitionSpec spec, CatalogTableStatistics s, boolean ignore) {
    throw new UnsupportedOperationException("Sediment keeps statistics in its manifests");
  }

  @Override
  public void alterPartitionColumnStatistics(
      ObjectPath path, CatalogPartitionSpec spec, CatalogColumnStatistics s, boolean ignore) {
    throw new UnsupportedOperationException("Sediment keeps statistics in its manifests");
  }

  /** Runs a catalog action, turning Sediment's validation errors into Flink catalog errors. */
  private static void run(Runnable action) {
    try {
      action.run();
    } catch (IllegalArgumentException | io.sediment.catalog.CatalogException e) {
      throw new CatalogException(e.getMessage(), e);
    }
  }
}
