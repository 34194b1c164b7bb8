package io.sediment.flink.sql;

import io.sediment.schema.SchemaChange;
import io.sediment.schema.TableSchema;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.TableChange;
import org.apache.flink.table.catalog.TableDistribution;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Translation between Flink's catalog tables and Sediment's schemas for {@link SedimentCatalog}:
 * Flink DDL to a Sediment schema, a stored schema to Flink's view of it, and {@code ALTER TABLE}
 * changes to schema changes. Separate from the catalog because it is pure conversion with no
 * catalog state: the catalog decides what exists and runs the actions.
 */
final class SchemaTranslation {

  private SchemaTranslation() {}

  /** The Flink view of a stored schema: physical columns, primary key, partition keys, options. */
  static CatalogTable toCatalogTable(TableSchema schema) {
    Schema.Builder b = Schema.newBuilder();
    for (TableSchema.DataField f : schema.fields()) {
      LogicalType type = f.logicalType();
      if (schema.primaryKeys().contains(f.name())) {
        type = type.copy(false);
      }
      b.column(f.name(), DataTypes.of(type));
      if (f.description() != null) {
        b.withComment(f.description());
      }
    }
    if (schema.hasPrimaryKey()) {
      b.primaryKey(schema.primaryKeys());
    }
    return CatalogTable.newBuilder()
        .schema(b.build())
        .comment(schema.comment())
        .partitionKeys(schema.partitionKeys())
        .options(schema.options())
        .build();
  }

  /** Converts Flink DDL to a Sediment schema; options are validated when the table is created. */
  static io.sediment.schema.Schema toSedimentSchema(CatalogBaseTable table) {
    if (!(table instanceof ResolvedCatalogTable)) {
      throw new CatalogException("Sediment stores tables only, not " + table.getTableKind());
    }
    ResolvedCatalogTable t = (ResolvedCatalogTable) table;
    ResolvedSchema rs = t.getResolvedSchema();
    if (!rs.getWatermarkSpecs().isEmpty()) {
      throw new CatalogException("Sediment tables cannot declare watermarks");
    }
    io.sediment.schema.Schema.Builder b = io.sediment.schema.Schema.newBuilder();
    for (Column c : rs.getColumns()) {
      if (!c.isPhysical()) {
        throw new CatalogException(
            "Column '"
                + c.getName()
                + "' is computed or metadata; Sediment stores physical columns only");
      }
      b.column(c.getName(), c.getDataType().getLogicalType(), c.getComment().orElse(null));
    }
    rs.getPrimaryKey().ifPresent(pk -> b.primaryKey(pk.getColumns()));
    b.partitionKeys(t.getPartitionKeys());
    b.options(withDistribution(t.getOptions(), t.getDistribution().orElse(null)));
    if (t.getComment() != null && !t.getComment().isEmpty()) {
      b.comment(t.getComment());
    }
    return b.build();
  }

  /**
   * The options with {@code DISTRIBUTED BY [HASH](k, ...) [INTO n BUCKETS]} as {@code bucket} and
   * {@code bucket-key} (Paimon's mapping): refused when it is by range, or disagrees with those
   * options given in {@code WITH} too. It was ignored (an append table left unbucketed).
   */
  static Map<String, String> withDistribution(Map<String, String> options, TableDistribution d) {
    if (d == null) {
      return options;
    }
    if (d.getKind() == TableDistribution.Kind.RANGE) {
      throw new CatalogException(
          "DISTRIBUTED BY RANGE is not supported: Sediment distributes rows to buckets by hash"
              + " (DISTRIBUTED BY HASH(k) INTO n BUCKETS, or the options 'bucket' and 'bucket-key')");
    }
    Map<String, String> out = new LinkedHashMap<>(options);
    if (d.getBucketCount().isPresent()) {
      put(out, "bucket", String.valueOf(d.getBucketCount().get()), "INTO n BUCKETS");
    } else if (!options.containsKey("bucket")) {
      throw new CatalogException(
          "DISTRIBUTED BY needs INTO n BUCKETS (or the option 'bucket'): Sediment's buckets are a"
              + " fixed number");
    }
    if (!d.getBucketKeys().isEmpty()) {
      put(out, "bucket-key", String.join(",", d.getBucketKeys()), "DISTRIBUTED BY (...)");
    }
    return out;
  }

  private static void put(Map<String, String> options, String key, String value, String clause) {
    String given = options.get(key);
    if (given != null && !given.replace(" ", "").equals(value)) {
      throw new CatalogException(
          clause
              + " says '"
              + key
              + "' = '"
              + value
              + "' but the option in WITH is '"
              + given
              + "': give one of them");
    }
    options.put(key, value);
  }

  static SchemaChange toSchemaChange(ObjectPath path, TableChange change) {
    if (change instanceof TableChange.SetOption set) {
      return SchemaChange.setOption(set.getKey(), set.getValue());
    } else if (change instanceof TableChange.ResetOption reset) {
      return SchemaChange.removeOption(reset.getKey());
    } else if (change instanceof TableChange.ModifyTableComment comment) {
      return SchemaChange.updateComment(comment.getComment());
    } else if (change instanceof TableChange.AddColumn add) {
      Column c = add.getColumn();
      if (!c.isPhysical()) {
        throw unsupportedChange(path, change, "computed and metadata columns are not supported");
      }
      return SchemaChange.addColumn(
          c.getName(),
          c.getDataType().getLogicalType(),
          c.getComment().orElse(null),
          move(c.getName(), add.getPosition()));
    } else if (change instanceof TableChange.DropColumn drop) {
      return SchemaChange.dropColumn(drop.getColumnName());
    } else if (change instanceof TableChange.ModifyColumnName rename) {
      return SchemaChange.renameColumn(rename.getOldColumnName(), rename.getNewColumnName());
    } else if (change instanceof TableChange.ModifyPhysicalColumnType type) {
      return SchemaChange.updateColumnType(
          type.getOldColumn().getName(), type.getNewType().getLogicalType());
    } else if (change instanceof TableChange.ModifyColumnComment comment) {
      return SchemaChange.updateColumnComment(
          comment.getOldColumn().getName(), comment.getNewComment());
    } else if (change instanceof TableChange.ModifyColumnPosition position) {
      return SchemaChange.updateColumnPosition(
          move(position.getOldColumn().getName(), position.getNewPosition()));
    }
    throw unsupportedChange(
        path,
        change,
        "supported are SET and RESET of options, ADD, RENAME, DROP and MODIFY of physical"
            + " columns, and the table comment");
  }

  private static SchemaChange.Move move(String column, TableChange.ColumnPosition position) {
    if (position == null) {
      return null;
    }
    if (position instanceof TableChange.After after) {
      return SchemaChange.Move.after(column, after.column());
    }
    return SchemaChange.Move.first(column);
  }

  private static UnsupportedOperationException unsupportedChange(
      ObjectPath path, TableChange change, String why) {
    return new UnsupportedOperationException(
        "ALTER TABLE " + path.getFullName() + ": '" + change + "' is not supported: " + why);
  }
}
