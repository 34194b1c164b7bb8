package io.sediment.fs;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Requests this JVM sent to object stores through Sediment's file access ({@link FileIO#fs}), by
 * kind. Each call into Flink's {@code FileSystem} is counted as the requests it costs on S3 (see
 * {@link CountingFileSystem}); a benchmark or a test reads the counts before and after an operation
 * ({@link #now()}, {@link Counts#since}). Counting is per file operation, never per row.
 */
public final class ObjectStoreRequests {

  /** The kinds of requests, as an object store bills them. */
  public enum Kind {
    LIST,
    HEAD,
    GET,
    PUT,
    COPY,
    DELETE
  }

  private static final Map<Kind, LongAdder> COUNTS = new EnumMap<>(Kind.class);

  static {
    for (Kind k : Kind.values()) {
      COUNTS.put(k, new LongAdder());
    }
  }

  private ObjectStoreRequests() {}

  static void count(Kind kind) {
    COUNTS.get(kind).increment();
  }

  /** The counts so far. */
  public static Counts now() {
    Map<Kind, Long> m = new EnumMap<>(Kind.class);
    for (Kind k : Kind.values()) {
      m.put(k, COUNTS.get(k).sum());
    }
    return new Counts(m);
  }

  /** Request counts by kind (every kind present). */
  public record Counts(Map<Kind, Long> byKind) {

    /** The requests sent between {@code earlier} and this. */
    public Counts since(Counts earlier) {
      Map<Kind, Long> m = new EnumMap<>(Kind.class);
      for (Kind k : Kind.values()) {
        m.put(k, byKind.get(k) - earlier.byKind.get(k));
      }
      return new Counts(m);
    }

    public long get(Kind kind) {
      return byKind.get(kind);
    }

    public long total() {
      return byKind.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The counts under keys {@code <prefix>List}, {@code <prefix>Head}... for a JSON report. */
    public Map<String, Long> toMap(String prefix) {
      Map<String, Long> m = new LinkedHashMap<>();
      for (Kind k : Kind.values()) {
        String name = k.name().toLowerCase(Locale.ROOT);
        m.put(prefix + Character.toUpperCase(name.charAt(0)) + name.substring(1), byKind.get(k));
      }
      return m;
    }

    @Override
    public String toString() {
      StringBuilder b = new StringBuilder();
      for (Kind k : Kind.values()) {
        b.append(b.length() == 0 ? "" : " ").append(k).append('=').append(byKind.get(k));
      }
      return b.toString();
    }
  }
}
