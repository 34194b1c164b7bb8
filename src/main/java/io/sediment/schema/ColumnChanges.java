package io.sediment.schema;

import io.sediment.schema.TableSchema.DataField;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Applies column changes to a schema's fields, one after another, refusing any that would make
 * files written before it unreadable or wrongly read:
 *
 * <ul>
 *   <li>an added column is nullable (rows written before have no value for it) and gets a new field
 *       id, never one used before;
 *   <li>partition and primary-key columns, and columns named by an option ({@code bucket-key},
 *       {@code sequence.field}, {@code fields.<f>.*}), cannot be renamed, dropped or retyped: rows
 *       are placed in partitions and buckets, and merged, by their values and names;
 *   <li>a type changes only to a wider one of the same kind ({@link TypeWidening}), and NOT NULL
 *       only to nullable.
 * </ul>
 */
final class ColumnChanges {

  /**
   * Names of the columns primary-key data files add after the table's (spec §8): no table column
   * takes them.
   */
  static final Set<String> RESERVED = Set.of("_SEQUENCE_NUMBER", "_ROW_KIND");

  private final TableSchema schema;
  private final List<DataField> fields;
  private int highestFieldId;

  ColumnChanges(TableSchema schema) {
    this.schema = schema;
    this.fields = new ArrayList<>(schema.fields());
    this.highestFieldId = schema.highestFieldId();
  }

  List<DataField> fields() {
    return List.copyOf(fields);
  }

  int highestFieldId() {
    return highestFieldId;
  }

  void apply(SchemaChange change) {
    if (change instanceof SchemaChange.AddColumn add) {
      checkNewName(add.name());
      if (!SupportedTypes.isSupported(add.type())) {
        throw SupportedTypes.unsupported(add.name(), add.type());
      }
      if (!add.type().isNullable()) {
        throw new IllegalArgumentException(
            "Cannot add column '"
                + add.name()
                + "' as NOT NULL: rows written before have no value for it; add it nullable");
      }
      DataField field =
          new DataField(
              ++highestFieldId, add.name(), add.type().asSerializableString(), add.comment());
      fields.add(field);
      if (add.move() != null) {
        move(add.move());
      }
    } else if (change instanceof SchemaChange.RenameColumn rename) {
      int i = index(rename.name());
      checkNotFixed(rename.name(), "renamed");
      if (!rename.name().equals(rename.newName())) {
        checkNewName(rename.newName());
      }
      DataField f = fields.get(i);
      fields.set(i, new DataField(f.id(), rename.newName(), f.type(), f.description()));
    } else if (change instanceof SchemaChange.DropColumn drop) {
      int i = index(drop.name());
      checkNotFixed(drop.name(), "dropped");
      if (fields.size() == 1) {
        throw new IllegalArgumentException(
            "Cannot drop column '" + drop.name() + "': it is the table's only column");
      }
      fields.remove(i);
    } else if (change instanceof SchemaChange.UpdateColumnType update) {
      retype(update.name(), update.type());
    } else if (change instanceof SchemaChange.UpdateColumnNullability update) {
      int i = index(update.name());
      LogicalType type = fields.get(i).logicalType();
      retype(update.name(), type.copy(update.nullable()));
    } else if (change instanceof SchemaChange.UpdateColumnComment update) {
      int i = index(update.name());
      DataField f = fields.get(i);
      fields.set(i, new DataField(f.id(), f.name(), f.type(), update.comment()));
    } else if (change instanceof SchemaChange.UpdateColumnPosition position) {
      index(position.move().field());
      move(position.move());
    } else {
      throw new IllegalArgumentException("Unknown schema change " + change);
    }
  }

  private void retype(String name, LogicalType to) {
    int i = index(name);
    DataField f = fields.get(i);
    LogicalType from = f.logicalType();
    if (from.equals(to)) {
      return;
    }
    checkNotFixed(name, "changed");
    if (!from.isNullable() && to.isNullable() && from.copy(true).equals(to)) {
      // NOT NULL -> NULL: every value written fits
    } else if (from.isNullable() && !to.isNullable()) {
      throw new IllegalArgumentException(
          "Cannot make column '"
              + name
              + "' NOT NULL: rows written before may hold nulls (and rows added by ADD COLUMN do)");
    } else if (!TypeWidening.canWiden(from.copy(true), to.copy(true))) {
      throw new IllegalArgumentException(
          "Cannot change the type of column '"
              + name
              + "' from "
              + from.asSummaryString()
              + " to "
              + to.asSummaryString()
              + ": "
              + TypeWidening.ALLOWED);
    }
    if (!SupportedTypes.isSupported(to)) {
      throw SupportedTypes.unsupported(name, to);
    }
    fields.set(i, new DataField(f.id(), f.name(), to.asSerializableString(), f.description()));
  }

  private void move(SchemaChange.Move move) {
    int from = index(move.field());
    DataField f = fields.remove(from);
    switch (move.type()) {
      case FIRST -> fields.add(0, f);
      case LAST -> fields.add(f);
      case AFTER, BEFORE -> {
        if (move.field().equals(move.referenceField())) {
          fields.add(from, f);
          throw new IllegalArgumentException(
              "Cannot move column '" + move.field() + "' relative to itself");
        }
        int ref = indexOrMinusOne(move.referenceField());
        if (ref < 0) {
          fields.add(from, f);
          throw new IllegalArgumentException(
              "Cannot move column '"
                  + move.field()
                  + "': there is no column '"
                  + move.referenceField()
                  + "'; columns are "
                  + names());
        }
        fields.add(move.type() == SchemaChange.Move.Type.AFTER ? ref + 1 : ref, f);
      }
    }
  }

  private void checkNewName(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("A column name cannot be empty");
    }
    if (indexOrMinusOne(name) >= 0) {
      throw new IllegalArgumentException(
          "Column '" + name + "' already exists; columns are " + names());
    }
    if (RESERVED.contains(name.toUpperCase())) {
      throw new IllegalArgumentException(
          "Column name '" + name + "' is reserved for Sediment's own columns " + RESERVED);
    }
  }

  /** Refuses a change of a column rows are placed, bucketed or merged by. */
  private void checkNotFixed(String name, String verb) {
    if (schema.partitionKeys().contains(name)) {
      throw new IllegalArgumentException(
          "Partition column '" + name + "' cannot be " + verb + ": files are placed by it");
    }
    if (schema.primaryKeys().contains(name)) {
      throw new IllegalArgumentException(
          "Primary-key column '"
              + name
              + "' cannot be "
              + verb
              + ": rows are bucketed and merged by it");
    }
    Set<String> options = referencingOptions(name);
    if (!options.isEmpty()) {
      throw new IllegalArgumentException(
          "Column '"
              + name
              + "' cannot be "
              + verb
              + ": option(s) "
              + options
              + " name it; change or reset them first");
    }
  }

  private Set<String> referencingOptions(String name) {
    Set<String> out = new LinkedHashSet<>();
    schema
        .options()
        .forEach(
            (key, value) -> {
              if (key.startsWith("fields." + name + ".")) {
                out.add(key);
              }
            });
    TableOptions opts = schema.tableOptions();
    String bucketKey = opts.get(LayoutOptions.BUCKET_KEY);
    if (bucketKey != null && TableSchema.splitList(bucketKey).contains(name)) {
      out.add(LayoutOptions.BUCKET_KEY.key());
    }
    if (name.equals(opts.get(PrimaryKeyOptions.SEQUENCE_FIELD))) {
      out.add(PrimaryKeyOptions.SEQUENCE_FIELD.key());
    }
    return out;
  }

  private int index(String name) {
    int i = indexOrMinusOne(name);
    if (i < 0) {
      throw new IllegalArgumentException(
          "There is no column '" + name + "'; columns are " + names());
    }
    return i;
  }

  private int indexOrMinusOne(String name) {
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private List<String> names() {
    List<String> out = new ArrayList<>();
    fields.forEach(f -> out.add(f.name()));
    return out;
  }
}
