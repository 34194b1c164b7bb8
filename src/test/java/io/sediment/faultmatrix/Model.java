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

  /** The changes that turn this model into {@code target} (deletes, then upserts). */
  List<Change> changesTo(Model target) {
    List<Change> out = new ArrayList<>();
    for (String key : rows.keySet()) {
      if (!target.rows.containsKey(key)) {
        out.add(new Change(key, 0, "", null, true));
      }
    }
    for (Map.Entry<String, String> e : target.rows.entrySet()) {
      if (!e.getValue().equals(rows.get(e.getKey()))) {
        // rendered "(id,p,v)": no field holds a comma
        String[] f = e.getValue().substring(1, e.getValue().length() - 1).split(",", 3);
        out.add(new Change(e.getKey(), Long.parseLong(f[0]), f[1], f[2], false));
      }
    }
    return out;
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
