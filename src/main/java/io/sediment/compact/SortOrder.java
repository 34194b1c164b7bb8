package io.sediment.compact;

import io.sediment.schema.TableSchema;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * The order a sort compaction writes rows in (Paimon's {@code order_strategy} and {@code
 * order_by}): linear by the columns, or along the z-order or Hilbert curve of their values.
 * Immutable; {@link #of} validates the names, {@link #validate} the columns against a table.
 */
public record SortOrder(Strategy strategy, List<String> columns) implements Serializable {

  /** The curve rows are laid out along. */
  public enum Strategy {
    /** Lexicographic by the columns, as {@code ORDER BY c1, c2}: clusters by the first column. */
    ORDER,
    /** Interleaved bits of the columns' values: clusters by every column alike. */
    ZORDER,
    /** The Hilbert curve through the columns' values: like z-order, with fewer jumps. */
    HILBERT;

    /** The name as users give it: {@code order}, {@code zorder}, {@code hilbert}. */
    public String value() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a name (any case); the error names the value and the allowed names. */
    public static Strategy parse(String value) {
      if (value != null) {
        String v = value.strip().toUpperCase(Locale.ROOT);
        for (Strategy s : values()) {
          if (s.name().equals(v)) {
            return s;
          }
        }
      }
      throw new IllegalArgumentException(
          "Unknown order_strategy '"
              + value
              + "': allowed are "
              + Arrays.stream(values())
                  .map(s -> "'" + s.value() + "'")
                  .collect(Collectors.joining(", ")));
    }
  }

  public SortOrder {
    if (strategy == null) {
      throw new IllegalArgumentException("order_strategy must not be null");
    }
    if (columns == null || columns.isEmpty()) {
      throw new IllegalArgumentException(
          "order_by must name at least one column for order_strategy '" + strategy.value() + "'");
    }
    Set<String> seen = new LinkedHashSet<>();
    for (String c : columns) {
      if (c == null || c.isBlank()) {
        throw new IllegalArgumentException("order_by has an empty column name: " + columns);
      }
      if (!seen.add(c)) {
        throw new IllegalArgumentException("order_by names column '" + c + "' twice: " + columns);
      }
    }
    columns = List.copyOf(columns);
  }

  /**
   * Parses {@code order_strategy} and {@code order_by} (comma-separated column names, e.g. {@code
   * "user_id,amount"}); both must be given together.
   */
  public static SortOrder of(String strategy, String orderBy) {
    if (strategy == null || orderBy == null) {
      throw new IllegalArgumentException(
          "order_strategy and order_by go together: got "
              + (strategy == null
                  ? "order_by without order_strategy"
                  : "order_strategy without order_by")
              + " (order_strategy is 'order', 'zorder' or 'hilbert'; order_by the columns, e.g."
              + " 'user_id,amount')");
    }
    List<String> columns = new ArrayList<>();
    for (String c : orderBy.split(",", -1)) {
      columns.add(c.strip());
    }
    return new SortOrder(Strategy.parse(strategy), columns);
  }

  /**
   * Checks the order against {@code schema}: an append table (a primary-key table is ordered by its
   * key), columns that exist, are not partition columns and have a type a sort key can be made of.
   */
  public void validate(String table, TableSchema schema) {
    if (schema.hasPrimaryKey()) {
      throw new IllegalArgumentException(
          "Sort compaction (order_strategy '"
              + strategy.value()
              + "') rewrites append tables only; "
              + table
              + " is a primary-key table, whose files are ordered by its key "
              + schema.primaryKeys());
    }
    if (schema.tableOptions().bucket() > 0) {
      throw new IllegalArgumentException(
          "Sort compaction rewrites append tables without fixed buckets ('bucket' = '-1') only;"
              + " "
              + table
              + " has "
              + schema.tableOptions().bucket()
              + " buckets, whose files keep their rows in write order");
    }
    List<String> names = schema.fieldNames();
    for (String c : columns) {
      int i = names.indexOf(c);
      if (i < 0) {
        throw new IllegalArgumentException(
            "order_by column '" + c + "' is not a column of " + table + "; columns are " + names);
      }
      if (schema.partitionKeys().contains(c)) {
        throw new IllegalArgumentException(
            "order_by column '"
                + c
                + "' is a partition column of "
                + table
                + ": all rows of a partition have the same value, so it cannot order them");
      }
      LogicalType type = schema.rowType().getTypeAt(i);
      if (!SortKeys.supports(type)) {
        throw new IllegalArgumentException(
            "order_by column '"
                + c
                + "' of "
                + table
                + " has type "
                + type
                + ", which cannot be sorted by; allowed are "
                + SortKeys.SUPPORTED);
      }
    }
  }

  @Override
  public String toString() {
    return strategy.value() + " by " + String.join(",", columns);
  }
}
