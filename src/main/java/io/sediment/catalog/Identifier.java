package io.sediment.catalog;

import java.io.Serializable;
import java.util.regex.Pattern;

/** A table's name in a warehouse: database and table. */
public record Identifier(String database, String table) implements Serializable {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_\\-]*");

  public Identifier {
    checkName("Database", database);
    checkName("Table", table);
  }

  /** Parses {@code db.table}. */
  public static Identifier parse(String fullName) {
    if (fullName == null) {
      throw new IllegalArgumentException("Table name must be given as 'database.table'");
    }
    int dot = fullName.indexOf('.');
    if (dot <= 0 || dot != fullName.lastIndexOf('.') || dot == fullName.length() - 1) {
      throw new IllegalArgumentException(
          "Table name '" + fullName + "' must be 'database.table' (exactly one dot)");
    }
    return new Identifier(fullName.substring(0, dot), fullName.substring(dot + 1));
  }

  static void checkName(String what, String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what
              + " name '"
              + name
              + "' is not valid: use letters, digits, '_' and '-', not starting with '-'");
    }
  }

  public String fullName() {
    return database + "." + table;
  }

  @Override
  public String toString() {
    return fullName();
  }
}
