package io.sediment.mergetree;

import io.sediment.schema.PrimaryKeyOptions;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TableSchema;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.types.RowKind;

/**
 * What a primary-key table does with each kind of row a writer is given: store it (as which kind),
 * drop it, or refuse it. Decided by the merge engine and Paimon's options {@code ignore-delete},
 * {@code partial-update.remove-record-on-delete}, {@code aggregation.remove-record-on-delete} and
 * {@code fields.<f>.ignore-retract}:
 *
 * <ul>
 *   <li>deduplicate stores every kind (a retraction as last version deletes the key);
 *   <li>first-row stores inserts and updates as inserts and refuses retractions;
 *   <li>partial-update stores inserts and updates as {@code +U} (merged onto older versions), a
 *       DELETE as {@code -D} with {@code partial-update.remove-record-on-delete}, and refuses other
 *       retractions;
 *   <li>aggregation stores retractions, which its {@code sum} and {@code count} fields subtract and
 *       its {@code last_value}, {@code last_non_null_value} fields ignore; a field whose function
 *       cannot retract ({@code min}, {@code max}) refuses them unless {@code
 *       fields.<f>.ignore-retract}. With {@code aggregation.remove-record-on-delete} a DELETE
 *       removes the row, and rows are stored with partial-update's kinds ({@code +U} a change to
 *       aggregate onto older versions, {@code +I} a complete row that replaces them).
 * </ul>
 *
 * With {@code ignore-delete} every engine drops DELETE and UPDATE_BEFORE rows. The same rules
 * answer the planner ({@link #refusal}) so that a SQL statement is refused before it runs.
 */
public final class RowKindPolicy implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String table;
  private final String engine;
  private final boolean ignoreDelete;
  private final boolean removeRecordOnDelete;
  private final List<String> cannotRetract;
  private final RowKind[] storedKinds = new RowKind[RowKind.values().length];
  private final String[] refusals = new String[RowKind.values().length];

  private RowKindPolicy(
      String table,
      String engine,
      boolean ignoreDelete,
      boolean removeRecordOnDelete,
      List<String> cannotRetract) {
    this.table = table;
    this.engine = engine;
    this.ignoreDelete = ignoreDelete;
    this.removeRecordOnDelete = removeRecordOnDelete;
    this.cannotRetract = cannotRetract;
    // Decided once per kind: the writer asks for every row.
    for (RowKind kind : RowKind.values()) {
      try {
        storedKinds[kind.ordinal()] = decide(kind);
      } catch (IllegalArgumentException e) {
        refusals[kind.ordinal()] = e.getMessage();
      }
    }
  }

  /**
   * The policy of a primary-key table named {@code table} (for messages), with its {@code options}:
   * the schema's with any dynamic ones ({@code ignore-delete}, {@code
   * partial-update.remove-record-on-delete} and {@code fields.<f>.ignore-retract} may be given as
   * such, as in Paimon; the other options it reads are fixed at creation).
   */
  public static RowKindPolicy of(String table, TableOptions options) {
    String engine = options.mergeEngine();
    boolean remove =
        switch (engine) {
          case "partial-update" ->
              options.get(PrimaryKeyOptions.PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE);
          case "aggregation" -> options.get(PrimaryKeyOptions.AGGREGATION_REMOVE_RECORD_ON_DELETE);
          default -> false;
        };
    List<String> cannotRetract = new ArrayList<>();
    if (engine.equals("aggregation")) {
      Set<String> ignored = options.ignoreRetractFields();
      for (Map.Entry<String, String> e : options.aggregateFunctions().entrySet()) {
        boolean retracts = !e.getValue().equals("min") && !e.getValue().equals("max");
        if (!retracts && !ignored.contains(e.getKey())) {
          cannotRetract.add(e.getKey() + " (" + e.getValue() + ")");
        }
      }
    }
    return new RowKindPolicy(
        table, engine, options.get(PrimaryKeyOptions.IGNORE_DELETE), remove, cannotRetract);
  }

  /**
   * Whether a DELETE row removes its key (deduplicate; partial-update and aggregation with their
   * {@code remove-record-on-delete}), and is not dropped by {@code ignore-delete}: what a {@code
   * DELETE FROM} statement needs.
   */
  public boolean deleteRemovesRow() {
    if (ignoreDelete) {
      return false;
    }
    return switch (engine) {
      case "deduplicate" -> true;
      case "partial-update", "aggregation" -> removeRecordOnDelete;
      default -> false;
    };
  }

  /** The merge engine. */
  public String engine() {
    return engine;
  }

  /** Whether aggregation rows are stored with partial-update's kinds (remove-record-on-delete). */
  static boolean aggregationRemovesRecords(TableSchema schema) {
    return schema.tableOptions().get(PrimaryKeyOptions.AGGREGATION_REMOVE_RECORD_ON_DELETE);
  }

  /**
   * The kind stored for a row of kind {@code kind}, or null when the row is dropped.
   *
   * @throws IllegalArgumentException when the table refuses rows of this kind (the message names
   *     the table, the kind and the option that would accept it)
   */
  public RowKind stored(RowKind kind) {
    String refusal = refusals[kind.ordinal()];
    if (refusal != null) {
      throw new IllegalArgumentException(refusal);
    }
    return storedKinds[kind.ordinal()];
  }

  private RowKind decide(RowKind kind) {
    boolean retract = KeyValueLayout.isRetract(kind);
    if (retract && ignoreDelete) {
      return null;
    }
    if (retract) {
      refusal(kind).ifPresent(RowKindPolicy::refuse);
    }
    switch (engine) {
      case "first-row":
        return RowKind.INSERT;
      case "partial-update":
        return retract ? RowKind.DELETE : RowKind.UPDATE_AFTER;
      case "aggregation":
        if (removeRecordOnDelete) {
          return retract ? kind : RowKind.UPDATE_AFTER;
        }
        return kind;
      default:
        return kind;
    }
  }

  private static void refuse(String message) {
    throw new IllegalArgumentException(message);
  }

  /**
   * Whether the engine needs UPDATE_BEFORE rows: aggregation subtracts them from its sums. Other
   * engines take an upsert stream, as Paimon's sink asks Flink for.
   */
  public boolean needsUpdateBefore() {
    return engine.equals("aggregation") && !ignoreDelete;
  }

  /** Why rows of one of these kinds would be refused, or empty when all are accepted. */
  public Optional<String> refusal(Set<RowKind> kinds) {
    for (RowKind k : EnumSet.of(RowKind.UPDATE_BEFORE, RowKind.DELETE)) {
      if (kinds.contains(k) && !ignoreDelete) {
        Optional<String> r = refusal(k);
        if (r.isPresent()) {
          return r;
        }
      }
    }
    return Optional.empty();
  }

  private Optional<String> refusal(RowKind kind) {
    String what = kind == RowKind.DELETE ? "DELETE" : "UPDATE_BEFORE";
    String head = "Table " + table + " (merge-engine " + engine + ") does not accept " + what;
    switch (engine) {
      case "first-row":
        return Optional.of(head + " rows; set 'ignore-delete' = 'true' to drop them");
      case "partial-update":
        if (kind == RowKind.DELETE && removeRecordOnDelete) {
          return Optional.empty();
        }
        return Optional.of(
            head
                + " rows; set 'ignore-delete' = 'true' to drop them"
                + (kind == RowKind.DELETE
                    ? " or 'partial-update.remove-record-on-delete' = 'true' to remove the row"
                    : ""));
      case "aggregation":
        if ((kind == RowKind.DELETE && removeRecordOnDelete) || cannotRetract.isEmpty()) {
          return Optional.empty();
        }
        return Optional.of(
            head
                + " rows: fields "
                + cannotRetract
                + " cannot retract a value; set 'fields.<field>.ignore-retract' = 'true' for them,"
                + " or 'ignore-delete' = 'true' to drop retractions"
                + (kind == RowKind.DELETE
                    ? ", or create the table with 'aggregation.remove-record-on-delete' = 'true'"
                    : ""));
      default:
        return Optional.empty();
    }
  }
}
