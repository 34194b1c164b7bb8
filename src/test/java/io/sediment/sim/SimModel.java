package io.sediment.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the table must hold: the committed changes applied in commit order with the semantics of the
 * table's merge engine (written out here independently of {@code MergeFunctions}):
 *
 * <ul>
 *   <li>deduplicate: the last upsert wins, a delete removes the key; with {@code sequence.field} =
 *       b ({@link SimConfig#sequenceField}), a change older by b than the version the table holds
 *       (nulls first) loses, a delete too;
 *   <li>first-row: the first upsert wins, later upserts and deletes are ignored;
 *   <li>partial-update: non-null fields of an upsert overwrite, a delete removes the key (an upsert
 *       after it starts from an empty row);
 *   <li>aggregation: {@code a} is a sum (a delete subtracts its {@code a}), {@code b} the last
 *       non-null value (a delete leaves it); a key exists once any change of it was committed;
 *   <li>aggregation-remove ({@code aggregation.remove-record-on-delete}): as aggregation, but a
 *       delete removes the row, and a later change starts a new one.
 *   <li>append (an append table): every committed row once, in any order.
 * </ul>
 */
final class SimModel {

  private final String engine;
  private final TreeMap<Long, Object[]> rows = new TreeMap<>();
  private final List<String> appended = new ArrayList<>();
  // every row the writers' windows committed, overwritten or not: what a streaming read sees
  private final List<String> streamed = new ArrayList<>();
  private long version;
  private final Map<Long, Integer> writerOf = new HashMap<>();
  private final Set<Long> shared = new HashSet<>();

  private final boolean sequenceField;

  /** {@code sequenceField}: the table orders a key's versions by b ({@link SimConfig}). */
  SimModel(String engine, boolean sequenceField) {
    this.engine = engine;
    this.sequenceField = sequenceField;
  }

  /** Changes with every apply: what was checked against the table is still current. */
  long version() {
    return version;
  }

  /**
   * Applies the changes a writer committed. A key written by two writers (whose inputs overlap, as
   * parallel Flink writers fed by a source that is not keyed by the primary key) has no defined
   * last version: such keys are only checked for appearing at most once ({@link #isShared}).
   */
  void apply(List<Change> changes, int writer) {
    version++;
    if (engine.equals("append")) {
      for (Change c : changes) {
        appended.add(render(c.k(), c.a(), c.b()));
        streamed.add(render(c.k(), c.a(), c.b()));
      }
      return;
    }
    for (Change c : changes) {
      Integer other = writerOf.putIfAbsent(c.k(), writer);
      if (other != null && other != writer) {
        shared.add(c.k());
      }
      apply(c);
    }
  }

  /**
   * An {@code INSERT OVERWRITE} committed: {@code rows} replace every row of partition {@code
   * partition} of {@code partitions} (null: of the table). On a primary-key table the rows are
   * merged among themselves by the engine, as one writer's, and later windows apply on top (in
   * commit order); {@code owner} gives a key's writer, so that it is not taken as written by two.
   */
  void overwrite(
      Integer partition,
      int partitions,
      List<Change> rows,
      java.util.function.LongToIntFunction owner) {
    version++;
    if (engine.equals("append")) {
      appended.removeIf(
          r -> partition == null || SimTable.partitionOf(keyOf(r), partitions) == partition);
      for (Change c : rows) {
        appended.add(render(c.k(), c.a(), c.b()));
      }
      return;
    }
    this.rows
        .keySet()
        .removeIf(k -> partition == null || SimTable.partitionOf(k, partitions) == partition);
    for (Change c : rows) {
      int writer = owner.applyAsInt(c.k());
      Integer other = writerOf.putIfAbsent(c.k(), writer);
      if (other != null && other != writer) {
        shared.add(c.k());
      }
      apply(c);
    }
  }

  /** An append table's rows committed by the writers, overwritten or not, sorted. */
  List<String> streamedRows() {
    List<String> out = new ArrayList<>(streamed);
    out.sort(null);
    return out;
  }

  boolean isShared(long k) {
    return shared.contains(k);
  }

  /** The order of b as the sequence field: nulls first, then the strings' order. */
  private static int compareB(String x, String y) {
    if (x == null || y == null) {
      return x == null ? (y == null ? 0 : -1) : 1;
    }
    return x.compareTo(y);
  }

  private void apply(Change c) {
    Object[] row = rows.get(c.k());
    switch (engine) {
      case "deduplicate" -> {
        if (sequenceField && row != null && compareB(c.b(), (String) row[1]) < 0) {
          return; // older by b than the version the table holds: it loses, a delete too
        }
        if (c.delete()) {
          rows.remove(c.k());
        } else {
          rows.put(c.k(), new Object[] {c.a(), c.b()});
        }
      }
      case "first-row" -> {
        if (!c.delete()) {
          rows.putIfAbsent(c.k(), new Object[] {c.a(), c.b()});
        }
      }
      case "partial-update" -> {
        if (c.delete()) {
          rows.remove(c.k());
        } else if (row == null) {
          rows.put(c.k(), new Object[] {c.a(), c.b()});
        } else {
          if (c.a() != null) {
            row[0] = c.a();
          }
          if (c.b() != null) {
            row[1] = c.b();
          }
        }
      }
      case "aggregation" -> {
        Integer a = c.a() == null ? null : (c.delete() ? -c.a() : c.a());
        if (row == null) {
          rows.put(c.k(), new Object[] {a, c.delete() ? null : c.b()});
        } else {
          if (a != null) {
            row[0] = row[0] == null ? a : (Integer) row[0] + a;
          }
          if (!c.delete() && c.b() != null) {
            row[1] = c.b();
          }
        }
      }
      case "aggregation-remove" -> {
        if (c.delete()) {
          rows.remove(c.k()); // the whole row goes; a later change starts a new one
        } else if (row == null) {
          rows.put(c.k(), new Object[] {c.a(), c.b()});
        } else {
          if (c.a() != null) {
            row[0] = row[0] == null ? c.a() : (Integer) row[0] + c.a();
          }
          if (c.b() != null) {
            row[1] = c.b();
          }
        }
      }
      default -> throw new IllegalArgumentException(engine);
    }
  }

  /** The rows of keys not {@link #isShared shared}, as the table renders them, sorted. */
  List<String> rows() {
    if (engine.equals("append")) {
      List<String> out = new ArrayList<>(appended);
      out.sort(null);
      return out;
    }
    List<String> out = new ArrayList<>();
    for (Map.Entry<Long, Object[]> e : rows.entrySet()) {
      if (shared.contains(e.getKey())) {
        continue;
      }
      out.add(render(e.getKey(), e.getValue()[0], e.getValue()[1]));
    }
    out.sort(null);
    return out;
  }

  static String render(long k, Object a, Object b) {
    return "(" + k + "," + a + "," + b + ")";
  }

  /** The key of a row {@link #render rendered}. */
  static long keyOf(String row) {
    return Long.parseLong(row.substring(1, row.indexOf(',')));
  }
}
