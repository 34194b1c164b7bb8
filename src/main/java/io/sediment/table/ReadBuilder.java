package io.sediment.table;

import io.sediment.format.DataFileReader;
import io.sediment.manifest.FileStore;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateJson;
import io.sediment.predicate.Predicates;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.types.logical.RowType;

/**
 * Configures a read: a filter (partition pruning, file pruning by column statistics, and exact row
 * filtering) and a projection. Both are validated when set.
 */
public final class ReadBuilder {

  private final FileStore store;
  private final List<Predicate> filters = new ArrayList<>();
  private int[] projection;
  private boolean withLevel0;

  ReadBuilder(FileStore store) {
    this.store = store;
  }

  /** Adds a filter on the table's row type; repeated calls combine with AND. */
  public ReadBuilder withFilter(Predicate filter) {
    if (filter != null) {
      // Re-binding checks every referenced field exists in this table.
      filters.add(Predicates.rebind(filter, store.rowType()));
    }
    return this;
  }

  /** Adds a filter in the JSON wire form; validated against the table's columns now. */
  public ReadBuilder withFilter(String jsonFilter) {
    return withFilter(PredicateJson.parse(jsonFilter, store.rowType()));
  }

  /** Reads only these columns, in this order (indexes into the table's row type). */
  public ReadBuilder withProjection(int[] fields) {
    int n = store.rowType().getFieldCount();
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (int f : fields) {
      if (f < 0 || f >= n) {
        throw new IllegalArgumentException(
            "Projection index " + f + " is out of range; the table has " + n + " columns");
      }
      if (!seen.add(f)) {
        // a row type cannot hold one name twice (the readers returned wrong columns)
        throw new IllegalArgumentException(
            "Projection index " + f + " is given twice; give each column once");
      }
    }
    this.projection = fields.clone();
    return this;
  }

  /** Reads only the named columns, in this order. */
  public ReadBuilder withProjection(String... columns) {
    return withProjection(store.schema().indexes(List.of(columns)));
  }

  /**
   * Reads a deletion-vector table's rows not compacted yet too (its level-0 files, merged over the
   * levels by sequence), which batch reads leave out as Paimon's do: the table exactly as written,
   * what a {@code DELETE} or {@code UPDATE} must see so that it neither misses a row nor writes
   * over a newer version with an older one. Tables without deletion vectors read so anyway.
   */
  public ReadBuilder withLevel0() {
    this.withLevel0 = true;
    return this;
  }

  Predicate filter() {
    return filters.isEmpty() ? null : Predicates.and(filters);
  }

  /** The type of the rows the reader returns. */
  public RowType readType() {
    return DataFileReader.project(store.rowType(), projection);
  }

  public TableScan newScan() {
    return TableScan.of(store, filter(), withLevel0);
  }

  /** A streaming read's plan: where it starts and the changes of each later snapshot. */
  public StreamScan newStreamScan() {
    return new StreamScan(store, filter());
  }

  public TableRead newRead() {
    return new TableRead(store, filter(), projection, false, withLevel0);
  }

  /** A reader of a streaming read's splits ({@link #newStreamScan()}). */
  public TableRead newStreamRead() {
    return new TableRead(store, filter(), projection, true, false);
  }
}
