package io.sediment.objectstore;

import static io.sediment.testutil.TestTables.row;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.table.Table;
import io.sediment.testutil.S3ProxyServer;
import io.sediment.testutil.TestTables;
import java.util.List;

/**
 * A committer in its own JVM for {@link S3ProcessRaceTest}: commits one row per commit, ids {@code
 * first} to {@code first + commits - 1}, to a table on S3Proxy, and prints {@code COMMITTED <id>}
 * after each commit that returned (or {@code FAILED <id> <error>}).
 *
 * <p>Arguments: endpoint, warehouse, first id, number of commits.
 */
public final class S3Committer {

  private S3Committer() {}

  public static void main(String[] args) {
    S3ProxyServer.configureFlink(args[0]);
    FileSystemCatalog catalog = new FileSystemCatalog(args[1]);
    long first = Long.parseLong(args[2]);
    int commits = Integer.parseInt(args[3]);
    Table table = catalog.getTable(new Identifier("db", "t"));
    for (long i = first; i < first + commits; i++) {
      try {
        TestTables.writeBatch(table, List.of(row(i, "v" + i)));
        System.out.println("COMMITTED " + i);
      } catch (RuntimeException e) {
        System.out.println("FAILED " + i + " " + e);
      }
      System.out.flush();
    }
    System.exit(0);
  }
}
