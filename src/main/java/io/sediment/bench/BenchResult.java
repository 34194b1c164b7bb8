package io.sediment.bench;

/** The figures of one benchmark run, printed as one JSON object. */
public record BenchResult(
    String workload,
    String mode,
    double wallSeconds,
    double planSeconds,
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

  public String toJson() {
    return String.format(
        java.util.Locale.ROOT,
        "{\"workload\":\"%s\",\"mode\":\"%s\",\"wallSeconds\":%.3f,\"planSeconds\":%.3f,\"rows\":%d,"
            + "\"rowsPerSecond\":%.0f,\"inputBytes\":%d,\"inputBytesPerSecond\":%.0f,\"filesIn\":%d,"
            + "\"filesOut\":%d,\"peakHeapBytes\":%d,\"compression\":\"%s\",\"verified\":%s,"
            + "\"verification\":\"%s\"}",
        workload, mode, wallSeconds, planSeconds, rows, rowsPerSecond, inputBytes,
        inputBytesPerSecond, filesIn, filesOut, peakHeapBytes, compression, verified,
        verification.replace("\"", "'"));
  }
}
