package io.sediment.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * What a user asks for when creating a table: columns with Flink types, partition keys, primary
 * keys and options. Built with {@link #newBuilder()}; validated into a {@link TableSchema} when the
 * table is created.
 */
public final class Schema {

  private final List<Column> columns;
  private final List<String> partitionKeys;
  private final List<String> primaryKeys;
  private final Map<String, String> options;
  private final String comment;

  private Schema(Builder b) {
    this.columns = List.copyOf(b.columns);
    this.partitionKeys = List.copyOf(b.partitionKeys);
    this.primaryKeys = List.copyOf(b.primaryKeys);
    this.options = Collections.unmodifiableMap(new LinkedHashMap<>(b.options));
    this.comment = b.comment;
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  public List<Column> columns() {
    return columns;
  }

  public List<String> partitionKeys() {
    return partitionKeys;
  }

  public List<String> primaryKeys() {
    return primaryKeys;
  }

  public Map<String, String> options() {
    return options;
  }

  public String comment() {
    return comment;
  }

  /** One column: name, Flink logical type (nullability included) and optional comment. */
  public record Column(String name, LogicalType type, String comment) {}

  /** Collects a schema; duplicate or blank names are rejected when the column is added. */
  public static final class Builder {
    private final List<Column> columns = new ArrayList<>();
    private final List<String> partitionKeys = new ArrayList<>();
    private final List<String> primaryKeys = new ArrayList<>();
    private final Map<String, String> options = new LinkedHashMap<>();
    private String comment;

    public Builder column(String name, DataType type) {
      return column(name, type.getLogicalType(), null);
    }

    public Builder column(String name, LogicalType type) {
      return column(name, type, null);
    }

    public Builder column(String name, LogicalType type, String comment) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("Column name must not be empty");
      }
      if (type == null) {
        throw new IllegalArgumentException("Column '" + name + "' has no type");
      }
      for (Column c : columns) {
        if (c.name().equals(name)) {
          throw new IllegalArgumentException("Duplicate column name '" + name + "'");
        }
      }
      columns.add(new Column(name, type, comment));
      return this;
    }

    public Builder partitionKeys(String... keys) {
      return partitionKeys(List.of(keys));
    }

    public Builder partitionKeys(List<String> keys) {
      partitionKeys.clear();
      partitionKeys.addAll(keys);
      return this;
    }

    public Builder primaryKey(String... keys) {
      return primaryKey(List.of(keys));
    }

    public Builder primaryKey(List<String> keys) {
      primaryKeys.clear();
      primaryKeys.addAll(keys);
      return this;
    }

    public Builder option(String key, String value) {
      options.put(key, value);
      return this;
    }

    public Builder options(Map<String, String> opts) {
      options.putAll(opts);
      return this;
    }

    public Builder comment(String comment) {
      this.comment = comment;
      return this;
    }

    public Schema build() {
      return new Schema(this);
    }
  }
}
