package io.sediment.faultmatrix;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the committed snapshots should contain. Rows are kept rendered as {@code (id,p,v)}; for a
 * primary-key table the model is key {@code p/id} to its latest row (a delete removes the key), for
 * an append table every row has a key of its own.
 */
final class Model {

  private final Map<String, String> rows = new LinkedHashMap<>();

  Model copy() {
    Model m = new Model();
    m.rows.putAll(rows);
    return m;
  }

  void apply(List<Change> changes) {
    for (Change c : changes) {
      if (c.delete()) {
        rows.remove(c.key());
      } else {
        rows.put(c.key(), c.rendered());
      }
    }
  }

  List<String> expectedRows() {
    return new ArrayList<>(rows.values());
  }

  int size() {
    return rows.size();
  }

  /** One written row: its model key, its values, and whether it deletes the key. */
  record Change(String key, long id, String p, String v, boolean delete) {
    String rendered() {
      return "(" + id + "," + p + "," + v + ")";
    }
  }
}
