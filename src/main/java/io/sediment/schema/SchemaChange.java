package io.sediment.schema;

import java.util.Objects;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * One change of a table's schema, applied by {@code FileSystemCatalog#alterTable} into a new schema
 * version ({@link TableSchema#apply}). Names follow Paimon's {@code SchemaChange}.
 *
 * <p>Column changes keep field ids: a renamed or retyped column keeps its id, an added column gets
 * a new one (never an id used before, dropped ones included), so files written with an older schema
 * are read by id ({@code docs/spec.md}, "Schema evolution").
 */
public sealed interface SchemaChange {

  /** Sets option {@code key} ({@code ALTER TABLE t SET ('key' = 'value')}). */
  static SchemaChange setOption(String key, String value) {
    return new SetOption(key, value);
  }

  /** Removes option {@code key}, back to its default ({@code ALTER TABLE t RESET ('key')}). */
  static SchemaChange removeOption(String key) {
    return new RemoveOption(key);
  }

  /** Replaces the table comment (null: none). */
  static SchemaChange updateComment(String comment) {
    return new UpdateComment(comment);
  }

  /** Adds a nullable column at the end. */
  static SchemaChange addColumn(String name, LogicalType type) {
    return new AddColumn(name, type, null, null);
  }

  /** Adds a nullable column; {@code move} null: at the end. */
  static SchemaChange addColumn(String name, LogicalType type, String comment, Move move) {
    return new AddColumn(name, type, comment, move);
  }

  static SchemaChange renameColumn(String name, String newName) {
    return new RenameColumn(name, newName);
  }

  static SchemaChange dropColumn(String name) {
    return new DropColumn(name);
  }

  /**
   * Changes a column's type to a wider one of the same kind (see {@link TableSchema#apply}); the
   * nullability of {@code type} counts too (NOT NULL to NULL only).
   */
  static SchemaChange updateColumnType(String name, LogicalType type) {
    return new UpdateColumnType(name, type);
  }

  /** Makes a NOT NULL column nullable ({@code true}); the other way is refused. */
  static SchemaChange updateColumnNullability(String name, boolean nullable) {
    return new UpdateColumnNullability(name, nullable);
  }

  static SchemaChange updateColumnComment(String name, String comment) {
    return new UpdateColumnComment(name, comment);
  }

  static SchemaChange updateColumnPosition(Move move) {
    return new UpdateColumnPosition(move);
  }

  record SetOption(String key, String value) implements SchemaChange {}

  record RemoveOption(String key) implements SchemaChange {}

  record UpdateComment(String comment) implements SchemaChange {}

  record AddColumn(String name, LogicalType type, String comment, Move move)
      implements SchemaChange {
    public AddColumn {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(type, "type");
    }
  }

  record RenameColumn(String name, String newName) implements SchemaChange {}

  record DropColumn(String name) implements SchemaChange {}

  record UpdateColumnType(String name, LogicalType type) implements SchemaChange {}

  record UpdateColumnNullability(String name, boolean nullable) implements SchemaChange {}

  record UpdateColumnComment(String name, String comment) implements SchemaChange {}

  record UpdateColumnPosition(Move move) implements SchemaChange {}

  /** Where a column goes: first, last, or just after or before another column. */
  record Move(String field, String referenceField, Type type) {

    public enum Type {
      FIRST,
      AFTER,
      BEFORE,
      LAST
    }

    public static Move first(String field) {
      return new Move(field, null, Type.FIRST);
    }

    public static Move last(String field) {
      return new Move(field, null, Type.LAST);
    }

    public static Move after(String field, String referenceField) {
      return new Move(field, referenceField, Type.AFTER);
    }

    public static Move before(String field, String referenceField) {
      return new Move(field, referenceField, Type.BEFORE);
    }
  }
}
