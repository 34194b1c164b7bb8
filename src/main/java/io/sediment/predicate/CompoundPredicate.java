package io.sediment.predicate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.table.data.RowData;

/** AND or OR of at least one child predicate. Immutable. */
public final class CompoundPredicate implements Predicate {

  private static final long serialVersionUID = 1L;

  /** The connective. */
  public enum Function {
    AND("and"),
    OR("or");

    private final String jsonName;

    Function(String jsonName) {
      this.jsonName = jsonName;
    }

    public String jsonName() {
      return jsonName;
    }
  }

  private final Function function;
  private final List<Predicate> children;

  public CompoundPredicate(Function function, List<? extends Predicate> children) {
    this.function = Objects.requireNonNull(function, "function");
    Objects.requireNonNull(children, "children");
    if (children.isEmpty()) {
      throw new IllegalArgumentException(
          "A compound '" + function.jsonName + "' needs at least one child");
    }
    List<Predicate> copy = new ArrayList<>(children.size());
    for (Predicate child : children) {
      copy.add(Objects.requireNonNull(child, "child predicate"));
    }
    this.children = Collections.unmodifiableList(copy);
  }

  public Function function() {
    return function;
  }

  public List<Predicate> children() {
    return children;
  }

  @Override
  public boolean test(RowData row) {
    List<Predicate> cs = children;
    if (function == Function.AND) {
      for (int i = 0, n = cs.size(); i < n; i++) {
        if (!cs.get(i).test(row)) {
          return false;
        }
      }
      return true;
    }
    for (int i = 0, n = cs.size(); i < n; i++) {
      if (cs.get(i).test(row)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean test(long rowCount, RowData min, RowData max, long[] nullCounts) {
    if (function == Function.AND) {
      for (Predicate c : children) {
        if (!c.test(rowCount, min, max, nullCounts)) {
          return false;
        }
      }
      return true;
    }
    for (Predicate c : children) {
      if (c.test(rowCount, min, max, nullCounts)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Set<String> fieldNames() {
    Set<String> names = new LinkedHashSet<>();
    for (Predicate c : children) {
      names.addAll(c.fieldNames());
    }
    return Collections.unmodifiableSet(names);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CompoundPredicate)) {
      return false;
    }
    CompoundPredicate that = (CompoundPredicate) o;
    return function == that.function && children.equals(that.children);
  }

  @Override
  public int hashCode() {
    return Objects.hash(function, children);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    String sep = function == Function.AND ? " AND " : " OR ";
    for (int i = 0; i < children.size(); i++) {
      if (i > 0) {
        sb.append(sep);
      }
      Predicate c = children.get(i);
      if (c instanceof CompoundPredicate && ((CompoundPredicate) c).children.size() > 1) {
        sb.append('(').append(c).append(')');
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
