package io.sediment.testutil;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The commit lock databases the tests run against: SQLite in a test's directory always, and
 * PostgreSQL when {@value #POSTGRES_URL} names one ({@code .ci/start-postgres} prints it). Under
 * {@code CI=true} PostgreSQL is required, so that CI never passes on SQLite alone.
 */
public final class LockDatabases {

  /** The environment variable (or system property) with PostgreSQL's JDBC URL. */
  public static final String POSTGRES_URL = "SEDIMENT_TEST_POSTGRES_URL";

  private LockDatabases() {}

  /** JDBC URLs: SQLite ({@code locks.db} in {@code dir}), then PostgreSQL when configured. */
  public static List<String> urls(Path dir) {
    List<String> urls = new ArrayList<>();
    urls.add("jdbc:sqlite:" + dir.resolve("locks.db"));
    String pg = postgres();
    if (pg != null) {
      urls.add(pg);
    } else {
      System.err.println(POSTGRES_URL + " is not set; testing the commit lock on SQLite only");
    }
    return urls;
  }

  /**
   * PostgreSQL's JDBC URL, or null when none is configured outside CI.
   *
   * @throws IllegalStateException under {@code CI=true} without one
   */
  public static String postgres() {
    String pg = System.getProperty(POSTGRES_URL, System.getenv(POSTGRES_URL));
    if (pg != null && !pg.isBlank()) {
      return pg;
    }
    if ("true".equals(System.getenv("CI"))) {
      throw new IllegalStateException(
          "CI runs the commit lock tests on PostgreSQL too: .ci/run must set " + POSTGRES_URL);
    }
    return null;
  }
}
