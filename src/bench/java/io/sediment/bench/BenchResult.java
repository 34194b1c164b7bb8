package io.sediment.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one benchmark run, printed as one JSON object. {@code cpuSeconds} is the CPU time
 * of the whole process over the timed section (all threads, JIT and GC included): steadier than
 * wall time on a noisy machine, and comparable with the peers' {@code compaction_cpu_s}.
 */
public record BenchResult(
    String workload,
    String mode,
    double wallSeconds,
    double planSeconds,
    double cpuSeconds,
    long rows,
    double rowsPerSecond,
    long inputBytes,
    double inputBytesPerSecond,
    long filesIn,
    long filesOut,
    long peakHeapBytes,
    String compression,
    boolean verified,
    String verification,
    Map<String, ?> details) {

  /** A result without details. */
  public BenchResult(
      String workload,
      String mode,
      double wallSeconds,
      double planSeconds,
      double cpuSeconds,
      long rows,
      double rowsPerSecond,
      long inputBytes,
      double inputBytesPerSecond,
      long filesIn,
      long filesOut,
      long peakHeapBytes,
      String compression,
      boolean verified,
      String verification) {
    this(
        workload,
        mode,
        wallSeconds,
        planSeconds,
        cpuSeconds,
        rows,
        rowsPerSecond,
        inputBytes,
        inputBytesPerSecond,
        filesIn,
        filesOut,
        peakHeapBytes,
        compression,
        verified,
        verification,
        Map.of());
  }

  /** This result with {@code more} details (after the present ones). */
  public BenchResult withDetails(Map<String, ?> more) {
    Map<String, Object> all = new LinkedHashMap<>(details);
    all.putAll(more);
    return with(workload, all);
  }

  private BenchResult with(String name, Map<String, ?> newDetails) {
    return new BenchResult(
        name,
        mode,
        wallSeconds,
        planSeconds,
        cpuSeconds,
        rows,
        rowsPerSecond,
        inputBytes,
        inputBytesPerSecond,
        filesIn,
        filesOut,
        peakHeapBytes,
        compression,
        verified,
        verification,
        newDetails);
  }

  /**
   * This result as the scale run {@code name} (W1x10, ...) of its workload, with its cost per unit
   * of work to compare with the base run's (wall seconds over rows or files): {@code nanosPerRow},
   * or {@code microsPerFile} for W3 (planning).
   */
  public BenchResult asScaleRun(String name) {
    Map<String, Object> all = new LinkedHashMap<>(details);
    all.put("baseWorkload", workload);
    if (workload.equals("W3")) {
      all.put("microsPerFile", wallSeconds * 1e6 / Math.max(1, filesIn));
    } else {
      all.put("nanosPerRow", wallSeconds * 1e9 / Math.max(1, rows));
    }
    return with(name, all);
  }

  /**
   * The JSON object: the figures, the details, then extra fields (numbers, booleans or strings).
   */
  public String toJson(Map<String, ?> extra) {
    StringBuilder b = new StringBuilder(toJson());
    b.setLength(b.length() - 1);
    Map<String, Object> all = new LinkedHashMap<>(details);
    all.putAll(extra);
    for (Map.Entry<String, ?> e : all.entrySet()) {
      Object v = e.getValue();
      b.append(",\"").append(e.getKey()).append("\":");
      if (v == null) {
        b.append("null");
      } else if (v instanceof Double || v instanceof Float) {
        b.append(String.format(Locale.ROOT, "%.3f", ((Number) v).doubleValue()));
      } else if (v instanceof Number || v instanceof Boolean) {
        b.append(v);
      } else {
        b.append('"').append(String.valueOf(v).replace("\"", "'")).append('"');
      }
    }
    return b.append('}').toString();
  }

  /** The figures as a JSON object (without the details). */
  public String toJson() {
    return String.format(
        Locale.ROOT,
        "{\"workload\":\"%s\",\"mode\":\"%s\",\"wallSeconds\":%.3f,\"planSeconds\":%.3f,\"cpuSeconds\":%.3f,"
            + "\"rows\":%d,"
            + "\"rowsPerSecond\":%.0f,\"inputBytes\":%d,\"inputBytesPerSecond\":%.0f,\"filesIn\":%d,"
            + "\"filesOut\":%d,\"peakHeapBytes\":%d,\"compression\":\"%s\",\"verified\":%s,"
            + "\"verification\":\"%s\"}",
        workload,
        mode,
        wallSeconds,
        planSeconds,
        cpuSeconds,
        rows,
        rowsPerSecond,
        inputBytes,
        inputBytesPerSecond,
        filesIn,
        filesOut,
        peakHeapBytes,
        compression,
        verified,
        verification.replace("\"", "'"));
  }
}
