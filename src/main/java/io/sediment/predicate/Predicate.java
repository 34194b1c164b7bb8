package io.sediment.predicate;

import java.io.Serializable;
import java.util.Set;
import org.apache.flink.table.data.RowData;

/**
 * A filter over rows of one {@link org.apache.flink.table.types.logical.RowType}, evaluable on rows
 * (exact) and on file/manifest statistics (conservative, for pruning).
 *
 * <p>Build with {@link PredicateBuilder}, parse from JSON with {@link PredicateJson}.
 */
public interface Predicate extends Serializable {

  /**
   * Exact row evaluation. SQL three-valued logic is collapsed: a comparison with a null field is
   * false (only {@code isNull} is true on null), and {@code notIn} with a null literal is false.
   */
  boolean test(RowData row);

  /**
   * May any row of a file/manifest with these stats match? Conservative: true when unsure.
   *
   * @param rowCount number of rows; 0 means nothing can match; negative means unknown
   * @param min per-field minimum, indexed like the predicate's row type; a null row or a null field
   *     means unknown (or all-null, decided with {@code nullCounts} and {@code rowCount})
   * @param max per-field maximum, same layout as {@code min}
   * @param nullCounts per-field null counts; a null array or a negative entry means unknown
   */
  boolean test(long rowCount, RowData min, RowData max, long[] nullCounts);

  /** Every field referenced, in first-reference order. */
  Set<String> fieldNames();
}
