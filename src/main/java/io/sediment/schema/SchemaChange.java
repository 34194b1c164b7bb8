package io.sediment.schema;

/**
 * One change of a table's schema, applied by {@code FileSystemCatalog#alterTable} into a new schema
 * version (Paimon's {@code SchemaChange} names). This version changes table options and the table
 * comment; column changes are refused until schema evolution reaches the data path.
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

  record SetOption(String key, String value) implements SchemaChange {}

  record RemoveOption(String key) implements SchemaChange {}

  record UpdateComment(String comment) implements SchemaChange {}
}
