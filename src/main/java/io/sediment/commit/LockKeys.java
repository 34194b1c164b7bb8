package io.sediment.commit;

import java.net.URI;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.core.fs.Path;

/**
 * The name of a table's commit lock: its location, normalised so that every spelling of one table
 * takes one lock. Scheme aliases of one store name one family ({@code s3}, {@code s3a}, {@code s3n}
 * and {@code s3p} are all {@code s3}; {@code abfs}/{@code abfss}, {@code wasb}/{@code wasbs},
 * {@code cos}/{@code cosn} alike), the bucket or host is lower case, the path is normalised ({@code
 * //}, {@code .}, {@code ..}, a trailing {@code /}), and a local path, with or without {@code
 * file:}, is absolute: {@code s3a://Lake/wh//db.db/t/} and {@code s3://lake/wh/db.db/t} are one
 * key, as are {@code /x/t} and {@code file:///x/t}.
 */
public final class LockKeys {

  private static final Map<String, String> FAMILIES =
      Map.ofEntries(
          Map.entry("s3", "s3"),
          Map.entry("s3a", "s3"),
          Map.entry("s3n", "s3"),
          Map.entry("s3p", "s3"),
          Map.entry("abfs", "abfs"),
          Map.entry("abfss", "abfs"),
          Map.entry("wasb", "wasb"),
          Map.entry("wasbs", "wasb"),
          Map.entry("cos", "cos"),
          Map.entry("cosn", "cos"));

  private LockKeys() {}

  /** The lock key of the table at {@code root}. */
  public static String of(Path root) {
    URI uri = root.toUri();
    String scheme = uri.getScheme() == null ? "file" : uri.getScheme().toLowerCase(Locale.ROOT);
    String family = FAMILIES.getOrDefault(scheme, scheme);
    if (family.equals("file")) {
      return "file://" + Paths.get(uri.getPath()).toAbsolutePath().normalize().toString();
    }
    String authority =
        uri.getAuthority() == null ? "" : uri.getAuthority().toLowerCase(Locale.ROOT);
    return family + "://" + authority + normalise(uri.getPath());
  }

  /** An absolute path without empty, {@code .} and {@code ..} segments or a trailing slash. */
  private static String normalise(String path) {
    Deque<String> segments = new ArrayDeque<>();
    for (String s : (path == null ? "" : path).split("/")) {
      if (s.isEmpty() || s.equals(".")) {
        continue;
      }
      if (s.equals("..")) {
        segments.pollLast();
      } else {
        segments.addLast(s);
      }
    }
    return "/" + String.join("/", segments);
  }
}
