package io.sediment.predicate;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.table.types.logical.RowType;

/** Utilities over predicates: projection for partition pruning, re-binding, combination. */
public final class Predicates {

  private Predicates() {}

  /**
   * The part of {@code predicate} that references only fields of {@code targetType} (by name),
   * re-indexed onto it. AND keeps the children that project; OR projects only if every child does;
   * a leaf projects if its field is in the target and its literals fit the target's field type. The
   * result is implied by the original (never stricter), so it is safe for pruning. Empty if nothing
   * qualifies.
   */
  public static Optional<Predicate> projectTo(Predicate predicate, RowType targetType) {
    Objects.requireNonNull(predicate, "predicate");
    Objects.requireNonNull(targetType, "targetType");
    if (predicate instanceof LeafPredicate) {
      LeafPredicate leaf = (LeafPredicate) predicate;
      if (!targetType.getFieldNames().contains(leaf.fieldName())) {
        return Optional.empty();
      }
      try {
        return Optional.of(rebindLeaf(leaf, targetType));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
    if (predicate instanceof CompoundPredicate) {
      CompoundPredicate compound = (CompoundPredicate) predicate;
      List<Predicate> kept = new ArrayList<>();
      for (Predicate child : compound.children()) {
        Optional<Predicate> projected = projectTo(child, targetType);
        if (projected.isPresent()) {
          kept.add(projected.get());
        } else if (compound.function() == CompoundPredicate.Function.OR) {
          return Optional.empty();
        }
      }
      if (kept.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(
          compound.function() == CompoundPredicate.Function.AND ? and(kept) : or(kept));
    }
    throw new IllegalArgumentException(
        "Unsupported predicate implementation " + predicate.getClass().getName());
  }

  /**
   * The same predicate re-indexed onto {@code targetType}, which must contain every referenced
   * field (by name) with a type the literals fit; otherwise IllegalArgumentException naming the
   * field. Structure is kept as is.
   */
  public static Predicate rebind(Predicate predicate, RowType targetType) {
    Objects.requireNonNull(predicate, "predicate");
    Objects.requireNonNull(targetType, "targetType");
    if (predicate instanceof LeafPredicate) {
      return rebindLeaf((LeafPredicate) predicate, targetType);
    }
    if (predicate instanceof CompoundPredicate) {
      CompoundPredicate compound = (CompoundPredicate) predicate;
      List<Predicate> children = new ArrayList<>();
      for (Predicate child : compound.children()) {
        children.add(rebind(child, targetType));
      }
      return new CompoundPredicate(compound.function(), children);
    }
    throw new IllegalArgumentException(
        "Unsupported predicate implementation " + predicate.getClass().getName());
  }

  private static LeafPredicate rebindLeaf(LeafPredicate leaf, RowType targetType) {
    int index = targetType.getFieldNames().indexOf(leaf.fieldName());
    if (index < 0) {
      throw new IllegalArgumentException(
          "Field '"
              + leaf.fieldName()
              + "' of the filter is missing from the target row type; fields are "
              + targetType.getFieldNames());
    }
    if (index == leaf.fieldIndex() && targetType.getTypeAt(index).equals(leaf.type())) {
      return leaf;
    }
    List<Object> external = new ArrayList<>();
    for (Object lit : leaf.literals()) {
      external.add(Literals.toExternal(lit, leaf.type()));
    }
    return new LeafPredicate(
        leaf.function(), targetType.getTypeAt(index), index, leaf.fieldName(), external);
  }

  /**
   * AND of the predicates: null elements are skipped, nested ANDs are flattened, a single remaining
   * predicate is returned as is. Throws IllegalArgumentException if the list is null or nothing
   * remains (there is no "always true" predicate; callers treat "no filter" as null or {@code
   * Optional.empty()}).
   */
  public static Predicate and(List<Predicate> predicates) {
    return combine(CompoundPredicate.Function.AND, predicates);
  }

  /** OR of the predicates, with the same null/empty/flattening rules as {@link #and(List)}. */
  public static Predicate or(List<Predicate> predicates) {
    return combine(CompoundPredicate.Function.OR, predicates);
  }

  private static Predicate combine(
      CompoundPredicate.Function function, List<Predicate> predicates) {
    if (predicates == null) {
      throw new IllegalArgumentException(
          "Cannot combine a null list of predicates with " + function);
    }
    List<Predicate> flat = new ArrayList<>();
    for (Predicate p : predicates) {
      if (p == null) {
        continue;
      }
      if (p instanceof CompoundPredicate && ((CompoundPredicate) p).function() == function) {
        flat.addAll(((CompoundPredicate) p).children());
      } else {
        flat.add(p);
      }
    }
    if (flat.isEmpty()) {
      throw new IllegalArgumentException(
          "Cannot combine zero predicates with "
              + function
              + "; pass at least one non-null predicate");
    }
    return flat.size() == 1 ? flat.get(0) : new CompoundPredicate(function, flat);
  }
}
