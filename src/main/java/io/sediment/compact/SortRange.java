package io.sediment.compact;

import java.util.Arrays;

/**
 * One task's share of a sort compaction of a bucket: the rows whose {@link SortKeys sort key} lies
 * in {@code [lower, upper)} (null: unbounded), range {@code index} of {@code count}. The ranges of
 * a bucket cover every key once, so the tasks' outputs together hold every row once, globally
 * sorted; the task of range 0 is the one that replaces (deletes) the inputs, and all ranges of a
 * bucket commit in one snapshot. {@code schemaId} is the table schema the bounds were computed
 * with: every range makes its keys with that schema's column types ({@link SortCompactRewriter}
 * refuses a newer schema that changed them, which would encode keys differently).
 */
public record SortRange(
    SortOrder order, long schemaId, int index, int count, byte[] lower, byte[] upper) {

  public SortRange {
    if (order == null) {
      throw new IllegalArgumentException("Sort order must not be null");
    }
    if (count < 1 || index < 0 || index >= count) {
      throw new IllegalArgumentException("Bad sort range " + index + " of " + count);
    }
    if (lower != null && upper != null && SortKeys.compare(lower, upper) >= 0) {
      throw new IllegalArgumentException("Empty sort range: lower bound not below upper bound");
    }
  }

  /** Whether {@code key} is in this range. */
  public boolean contains(byte[] key) {
    return (lower == null || SortKeys.compare(key, lower) >= 0)
        && (upper == null || SortKeys.compare(key, upper) < 0);
  }

  /** Whether this range's task replaces the bucket's input files (range 0 does). */
  public boolean replacesInputs() {
    return index == 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SortRange r
        && order.equals(r.order)
        && schemaId == r.schemaId
        && index == r.index
        && count == r.count
        && Arrays.equals(lower, r.lower)
        && Arrays.equals(upper, r.upper);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * order.hashCode() + index) + count;
  }

  @Override
  public String toString() {
    return "range " + (index + 1) + " of " + count + " (" + order + ")";
  }
}
